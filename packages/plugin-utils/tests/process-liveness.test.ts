import { spawn } from "node:child_process";
import { hostname } from "node:os";
import { describe, expect, it } from "vitest";
import { currentProcess, describeProcess, identityOf, isProcessRunning, liveness, parseIdentity } from "../src/index.js";

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

describe("isProcessRunning", () => {
  it("is true for this process and for pid 1, false for an exited child and for non-pids", async () => {
    expect(isProcessRunning(process.pid)).toBe(true);
    expect(isProcessRunning(1)).toBe(true);
    expect(isProcessRunning(await exitedPid())).toBe(false);
    for (const pid of [0, -1, 1.5, Number.NaN]) expect(isProcessRunning(pid)).toBe(false);
  });
});

describe("liveness of a recorded ProcessIdentity", () => {
  it("is alive for this process and dead once a recorded child has exited", async () => {
    expect(liveness(currentProcess())).toBe("alive");
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const identity = identityOf(child.pid!)!;
    expect(liveness(identity)).toBe("alive");
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(liveness(identity)).toBe("dead");
  });

  it("treats a live pid with another start time as a reused pid (dead)", () => {
    const self = currentProcess();
    if (self.startTime === undefined) return; // no /proc: the start time is not recorded
    expect(liveness({ ...self, startTime: String(Number(self.startTime) + 1) })).toBe("dead");
  });

  it("judges another boot of this host dead and another host's boot unknown", () => {
    const self = currentProcess();
    if (self.bootId === undefined) return;
    expect(liveness({ ...self, bootId: "another-boot" })).toBe("dead");
    expect(liveness({ ...self, bootId: "another-boot", host: `${hostname()}-elsewhere` })).toBe("unknown");
  });

  it("reads back only well-formed identities and describes one in a line", () => {
    const self = currentProcess();
    expect(parseIdentity(JSON.parse(JSON.stringify(self)))).toEqual(self);
    for (const value of [null, "x", { pid: -1, host: "h" }, { pid: 3 }, { pid: 2.5, host: "h" }])
      expect(parseIdentity(value)).toBeUndefined();
    expect(describeProcess(self)).toBe(`pid ${process.pid} on host ${hostname()}`);
  });
});
