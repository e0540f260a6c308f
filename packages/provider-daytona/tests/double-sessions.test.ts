import { Daytona, type Sandbox } from "@daytonaio/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { daytonaProvider } from "@outpost/provider-daytona";
import { startDaytonaDouble } from "@outpost/cloud-doubles/daytona";
import { useApiDouble } from "@outpost/testkit/faults";

// A session is one shell running its commands in itself, one after the other, as the daemon does. A double
// that started a fresh process per command would hide what a command line does to the session.
const fixture = useApiDouble("daytona-double-sessions", startDaytonaDouble);

describe("daytona double: a process session is one shell", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await new Daytona({ ...fixture.double.credentials, useDeprecatedPolling: true }).create();
  });
  afterAll(async () => {
    await sandbox.delete();
  });

  it("keeps what one command changed (directory, variables) for the next", async () => {
    await sandbox.process.createSession("state");
    const first = await sandbox.process.executeSessionCommand("state", { command: "export FOO=bar; cd /tmp; echo out; echo err >&2" });
    expect(first).toMatchObject({ exitCode: 0, stdout: "out\n", stderr: "err\n" });
    const second = await sandbox.process.executeSessionCommand("state", { command: 'echo "$FOO $(pwd)"; (exit 3)' });
    expect(second).toMatchObject({ exitCode: 3, stdout: "bar /tmp\n" });
  });

  it("runs its commands one after the other, each with its own live log", async () => {
    await sandbox.process.createSession("queue");
    const slow = await sandbox.process.executeSessionCommand("queue", {
      command: "sleep 0.3; echo slow; touch queue.done",
      runAsync: true,
    });
    const next = await sandbox.process.executeSessionCommand("queue", { command: "test -e queue.done && echo after || echo before" });
    expect(next.stdout).toBe("after\n");
    const chunks: string[] = [];
    await sandbox.process.getSessionCommandLogs(
      "queue",
      slow.cmdId,
      (chunk) => chunks.push(chunk),
      () => undefined,
    );
    expect(chunks.join("")).toBe("slow\n");
    expect((await sandbox.process.getSessionCommand("queue", slow.cmdId)).exitCode).toBe(0);
  });

  it("reports a command's exit code at once, but stays busy while a process it left holds its output", async () => {
    await sandbox.process.createSession("held");
    const left = await sandbox.process.executeSessionCommand("held", { command: "(sleep 0.6; touch held.done) & echo left" });
    expect(left).toMatchObject({ exitCode: 0, stdout: "left\n" });
    // Answered before the process it left is done (a command outside the session looks)...
    const meanwhile = await sandbox.process.executeCommand(`sh -c "test -e held.done && echo done || echo running"`);
    expect(meanwhile.result).toBe("running\n");
    // ...while the session's next command runs only once that process let go of the output.
    const next = await sandbox.process.executeSessionCommand("held", { command: "test -e held.done && echo waited || echo early" });
    expect(next.stdout).toBe("waited\n");
  });

  it("is gone once a command replaces its shell (exec): no exit code, and no further command", async () => {
    await sandbox.process.createSession("replaced");
    const replaced = await sandbox.process.executeSessionCommand("replaced", { command: "exec sh -c 'echo replaced'", runAsync: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await sandbox.process.getSessionCommand("replaced", replaced.cmdId)).exitCode).toBeUndefined();
    await expect(sandbox.process.executeSessionCommand("replaced", { command: "echo again" })).rejects.toThrow(/exited/);
  });

  it("is left as it was by the provider's commands, and none waits behind another", async () => {
    const lease = await daytonaProvider(fixture.double.credentials).acquire(fixture.context);
    try {
      const results = await Promise.all(
        ["one", "two", "three"].map((word) =>
          lease.invoke({ executable: "sh", arguments: ["-c", `sleep 0.2; cd /; echo ${word} "$FOO"`], variables: { FOO: word } }),
        ),
      );
      expect(results.map((result) => [result.status, result.stdout])).toEqual([
        [0, "one one\n"],
        [0, "two two\n"],
        [0, "three three\n"],
      ]);
      // A command that leaves a process holding its output does not hold up the next one.
      await lease.invoke({ executable: "sh", arguments: ["-c", "(sleep 3; touch lease.done) & echo left"] });
      const next = await lease.invoke({ executable: "sh", arguments: ["-c", "test -e lease.done && echo waited || echo at-once"] });
      expect(next.stdout).toBe("at-once\n");
      // Later commands still run, in the lease's root, with the lease's variables only.
      const after = await lease.invoke({ executable: "sh", arguments: ["-c", 'echo "$(pwd) [$FOO]"'] });
      expect(after).toMatchObject({ status: 0, stdout: `${lease.root} []\n` });
    } finally {
      await lease.release();
    }
  });
});
