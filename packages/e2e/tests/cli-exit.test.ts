import { describe, expect, it } from "vitest";
import { runLocalWithProbe } from "./support/cli-process.js";

// A finished run must not be kept alive by a timer, socket or handle (issue 19: a 250 ms pipe-drain timer
// once held every `outpost run` open after the agent exited). The CLI runs as a fresh process with a probe
// preloaded that reports what still kept its event loop alive once its output stopped.

interface ProbeReport {
  sinceLastOutputMs: number;
  lingering: string[];
}

describe("a finished CLI run exits at once", () => {
  it("nothing keeps `outpost run --json` alive after its last output (local provider)", () => {
    const { status, stderr } = runLocalWithProbe("linger-probe.mjs", "exit.txt", { ...process.env, LINGER_PROBE_MS: "120" });
    expect(status, stderr).toBe(0);
    const line = stderr.split("\n").find((text) => text.startsWith("linger-probe "));
    if (line === undefined) throw new Error(`the probe did not report; stderr:\n${stderr}`);
    const report = JSON.parse(line.slice("linger-probe ".length)) as ProbeReport;
    // Timers and sockets still ref'd once output stopped are named here. Pipes of the exited agent may still
    // be closing on a loaded machine, so only what can hold a process open on its own is judged.
    expect(report.lingering.filter((kind) => /Timeout|Immediate|TCP|UDP|Signal|FSEvent|StatWatcher/.test(kind))).toEqual([]);
  });
});
