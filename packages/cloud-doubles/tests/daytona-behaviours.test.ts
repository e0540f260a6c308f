import { Daytona, type Sandbox } from "@daytonaio/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startDaytonaDouble, type DaytonaDouble } from "@outpost/cloud-doubles/daytona";

// What the real service does that a naive double would hide, seen through the official SDK.
let double: DaytonaDouble;
let sandbox: Sandbox;
beforeAll(async () => {
  double = await startDaytonaDouble();
  sandbox = await new Daytona({ ...double.credentials, useDeprecatedPolling: true }).create();
});
afterAll(async () => {
  await sandbox.delete();
  await double.close();
});

describe("daytona double: the daemon's habits", () => {
  it("labels output line by line: NUL bytes lost, a newline added to the last line", async () => {
    await sandbox.process.createSession("labels");
    const ended = await sandbox.process.executeSessionCommand("labels", { command: "printf 'a\\000b\\nlast'; printf 'e\\000rr' >&2" });
    expect(ended).toMatchObject({ exitCode: 0, stdout: "ab\nlast\n", stderr: "err\n" });
  });

  it("cuts frames right after a marker: the SDK's demultiplexer lets marker bytes into the output", async () => {
    await sandbox.process.createSession("frames");
    const { cmdId } = await sandbox.process.executeSessionCommand("frames", {
      command: "for i in 1 2 3 4 5 6 7 8 9 10; do echo line$i; done",
      runAsync: true,
    });
    let text = "";
    await sandbox.process.getSessionCommandLogs(
      "frames",
      cmdId,
      (chunk) => (text += chunk),
      (chunk) => (text += chunk),
    );
    expect(text).toContain("\u0001");
    expect(text.replaceAll("\u0001", "").replaceAll("\u0002", "")).toContain("line10");
  });

  it("runs /process/execute with no shell: the line split as parseCommand does, in the working directory", async () => {
    // daytonaio/daytona apps/daemon/pkg/toolbox/process/execute/execute.go: quotes group, nothing expands.
    const plain = await sandbox.process.executeCommand(`echo a && echo $HOME 'b  c'"'d'" ''`);
    expect(plain).toMatchObject({ exitCode: 0, result: "a && echo $HOME b  c'd'\n" });
    const where = await sandbox.process.executeCommand("pwd");
    expect(where.result).toBe(`${await sandbox.getWorkDir()}\n`);
    const both = await sandbox.process.executeCommand(`sh -c "echo out; echo err >&2; exit 3"`, "/");
    expect(both).toMatchObject({ exitCode: 3, result: "out\nerr\n" });
    const missing = await sandbox.process.executeCommand("no-such-program-here");
    expect(missing).toMatchObject({ exitCode: -1, result: 'exec: "no-such-program-here": executable file not found in $PATH' });
    await expect(sandbox.process.executeCommand("sleep 5", undefined, undefined, 1)).rejects.toMatchObject({ statusCode: 408 });
  });

  it("answers the home as the working directory (no WORKDIR in the image)", async () => {
    expect(await sandbox.getWorkDir()).toBe(await sandbox.getUserHomeDir());
  });

  it("kills what a session's commands left in the background when the session is deleted", async () => {
    await sandbox.process.createSession("background");
    const started = await sandbox.process.executeSessionCommand("background", { command: "sleep 60 >/dev/null 2>&1 </dev/null & echo $!" });
    const pid = started.stdout!.trim();
    // A zombie counts as gone: only its exit status is left for a parent to collect.
    const alive = () =>
      sandbox.process.executeCommand(
        `sh -c 'read -r s < /proc/${pid}/stat 2>/dev/null && case "\${s##*) }" in Z*) echo gone ;; *) echo alive ;; esac || echo gone'`,
      );
    expect((await alive()).result.trim()).toBe("alive");
    await sandbox.process.deleteSession("background");
    expect((await alive()).result.trim()).toBe("gone");
  });

  it("cuts log streams when asked: the SDK's follow resolves while the command still runs", async () => {
    double.dropLogStreams({ afterMs: 300 });
    try {
      await sandbox.process.createSession("drops");
      const { cmdId } = await sandbox.process.executeSessionCommand("drops", {
        command: "echo before; sleep 2; echo after",
        runAsync: true,
      });
      let text = "";
      await sandbox.process.getSessionCommandLogs(
        "drops",
        cmdId,
        (chunk) => (text += chunk),
        () => undefined,
      );
      expect(text).toContain("before");
      expect(text).not.toContain("after");
      expect((await sandbox.process.getSessionCommand("drops", cmdId)).exitCode).toBeUndefined();
    } finally {
      double.dropLogStreams(undefined);
    }
  });
});
