import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { pidsAfter, readPidCounter } from "../src/pid-counter.js";

// The release of a local lease reads only processes started after the lease; these pin when that is safe.
describe.runIf(process.platform === "linux")("the pid window of a lease's straggler scan", () => {
  it("admits a process started after the mark and none at or below its last pid", () => {
    // The counter may wrap around between the two reads when other tests fork a lot: then try again.
    for (let attempt = 0; ; attempt++) {
      const since = readPidCounter()!;
      expect(since).toBeDefined();
      const child = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
      const admits = pidsAfter(since);
      if (admits === undefined && attempt < 3) continue;
      expect(admits).toBeDefined();
      expect(admits!(Number(child.stdout.trim()))).toBe(true);
      expect(admits!(since.lastPid)).toBe(false);
      expect(admits!(1)).toBe(false);
      return;
    }
  });

  it("admits every pid once the counter went down (it wrapped around) or forked past half of pid_max", () => {
    const now = readPidCounter()!;
    expect(pidsAfter({ lastPid: now.lastPid + 1_000_000, forks: now.forks })).toBeUndefined();
    expect(pidsAfter({ lastPid: 1, forks: now.forks - 100_000_000 })).toBeUndefined();
    expect(pidsAfter(undefined)).toBeUndefined();
  });
});
