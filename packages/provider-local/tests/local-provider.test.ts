import { readFileSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError, type SandboxLease } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";

let workspace: string;
const leases: SandboxLease[] = [];

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "outpost-local-test-"));
});

afterEach(async () => {
  await Promise.all(leases.splice(0).map((lease) => lease.release()));
  await rm(workspace, { recursive: true, force: true });
});

async function acquire(config: Parameters<typeof localProvider>[0] = {}, variables: Record<string, string> = {}): Promise<SandboxLease> {
  // A private home unless the test asks for another: the default (the host home) is tested on its own.
  const lease = await localProvider({ home: "private", ...config }).acquire({
    repository: workspace,
    directory: workspace,
    gitDirectories: [],
    variables,
  });
  leases.push(lease);
  return lease;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable("expected a rejection"),
    (error: unknown) => error,
  );
}

describe("localProvider home", () => {
  it('gives each lease its own private 0700 home with home: "private", set as HOME, removed on release', async () => {
    const first = await acquire({ home: "private" });
    const second = await acquire({ home: "private" });
    expect(first.home).not.toBe(second.home);
    expect(first.home).not.toBe(homedir());
    expect((await stat(first.home)).mode & 0o777).toBe(0o700);
    const result = await first.invoke({ executable: "sh", arguments: ["-c", 'printf %s "$HOME"'] });
    expect(result.stdout).toBe(first.home);
    await first.release();
    await expect(stat(first.home)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it('uses the host home by default (reference page 002), as home: "host" does, and never removes it', async () => {
    const byDefault = await localProvider().acquire({ repository: workspace, directory: workspace, gitDirectories: [], variables: {} });
    leases.push(byDefault);
    expect(byDefault.home).toBe(homedir());
    await byDefault.release();
    const lease = await acquire({ home: "host" });
    expect(lease.home).toBe(homedir());
    expect((await lease.invoke({ executable: "sh", arguments: ["-c", 'printf %s "$HOME"'] })).stdout).toBe(homedir());
    await lease.release();
    expect((await stat(homedir())).isDirectory()).toBe(true);
  });

  it("uses a given home path, creating it and keeping it after release", async () => {
    const home = join(workspace, "given home");
    const lease = await acquire({ home });
    expect(lease.home).toBe(home);
    await lease.release();
    expect((await stat(home)).isDirectory()).toBe(true);
  });
});

describe("localProvider processes", () => {
  it("runs each command as the leader of its own process group", async () => {
    const lease = await acquire();
    const result = await lease.invoke({
      executable: "sh",
      arguments: ["-c", 'read -r line < /proc/$$/stat; set -- ${line##*) }; echo "$$ $3"'],
    });
    const [pid, group] = result.stdout.trim().split(" ");
    expect(group).toBe(pid);
    expect(Number(group)).not.toBe(process.pid);
  });

  it("on deadline also kills a grandchild that escaped to its own session with setsid", async () => {
    const lease = await acquire();
    const pidFile = join(workspace, "escaped.pid");
    const run = lease.invoke({
      executable: "sh",
      arguments: ["-c", `setsid sh -c 'trap "" TERM; echo $$ > "$1"; exec sleep 300' sh ${JSON.stringify(pidFile)} & sleep 300`],
      deadlineMs: 1_000,
    });
    const error = await rejection(run);
    expect(isOutpostError(error, "timeout")).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(pid).toBeGreaterThan(0);
    expect(running(pid)).toBe(false);
  });

  it("release() kills the tree of a running command and rejects it with code provider", async () => {
    const lease = await acquire();
    const pidFile = join(workspace, "child.pid");
    let ready!: () => void;
    const started = new Promise<void>((resolve) => (ready = resolve));
    const run = lease.invoke({
      executable: "sh",
      arguments: ["-c", `sh -c 'trap "" TERM; echo $$ > "$1"; echo ready; exec sleep 300' sh ${JSON.stringify(pidFile)} & wait`],
      observe: () => ready(),
    });
    const outcome = rejection(run);
    await started;
    await lease.release();
    const error = await outcome;
    expect(isOutpostError(error, "provider")).toBe(true);
    const pid = Number(readFileSync(pidFile, "utf8").trim());
    expect(running(pid)).toBe(false);
  });

  it("adds provider variables and context variables, the command's own winning", async () => {
    const lease = await acquire(
      { variables: { FROM_PROVIDER: "provider", SHARED: "provider" } },
      { FROM_CONTEXT: "context", SHARED: "context" },
    );
    const result = await lease.invoke({
      executable: "sh",
      arguments: ["-c", 'printf "%s %s %s" "$FROM_PROVIDER" "$FROM_CONTEXT" "$SHARED"'],
      variables: { SHARED: "command" },
    });
    expect(result.stdout).toBe("provider context command");
  });
});

describe("localProvider refusals", () => {
  it("a missing executable fails with code process", async () => {
    const lease = await acquire();
    const error = await rejection(lease.invoke({ executable: "outpost-no-such-executable" }));
    expect(isOutpostError(error, "process")).toBe(true);
    expect((error as Error).message).toMatch(/outpost-no-such-executable.*PATH/);
  });

  it("a missing working directory fails with code workspace", async () => {
    const lease = await acquire();
    const error = await rejection(lease.invoke({ executable: "true", directory: join(workspace, "missing") }));
    expect(isOutpostError(error, "workspace")).toBe(true);
  });

  it("a directory that leaves the root through .. fails with code workspace", async () => {
    const lease = await acquire();
    const error = await rejection(lease.invoke({ executable: "true", directory: "../" }));
    expect(isOutpostError(error, "workspace")).toBe(true);
  });

  it("interactive commands are refused with code configuration", async () => {
    const lease = await acquire();
    const error = await rejection(lease.invoke({ executable: "true", interactive: true }));
    expect(isOutpostError(error, "configuration")).toBe(true);
  });

  it("acquire() on a missing directory fails with code workspace", async () => {
    const missing = join(workspace, "missing");
    const error = await rejection(localProvider().acquire({ repository: missing, directory: missing, gitDirectories: [], variables: {} }));
    expect(isOutpostError(error, "workspace")).toBe(true);
  });

  it("a negative killGraceMs is refused with code configuration", () => {
    let error: unknown;
    try {
      localProvider({ killGraceMs: -1 });
    } catch (caught) {
      error = caught;
    }
    expect(isOutpostError(error, "configuration")).toBe(true);
  });
});

/** True while the pid runs on the host; a zombie waiting for its parent counts as ended. */
function running(pid: number): boolean {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    return text.slice(text.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
