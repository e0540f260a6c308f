import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { scratchRepository } from "../src/index.js";
import { outpostArguments, scriptAgentModule } from "./support/cli-process.js";

// A finished run must not be kept alive by a timer, socket or handle (issue 19: a 250 ms pipe-drain timer
// once held every `outpost run` open after the agent exited). The CLI runs as a fresh process with a probe
// preloaded that reports what still kept its event loop alive once its output stopped.
const here = dirname(fileURLToPath(import.meta.url));
const probe = pathToFileURL(join(here, "fixtures/linger-probe.mjs")).href;

interface ProbeReport {
  sinceLastOutputMs: number;
  lingering: string[];
}

function runCli(args: readonly string[], cwd: string): { status: number | null; report: ProbeReport; stderr: string } {
  const result = spawnSync(process.execPath, outpostArguments(args, [probe]), {
    cwd,
    encoding: "utf8",
    timeout: 60_000,
    env: { ...process.env, LINGER_PROBE_MS: "120" },
  });
  const line = result.stderr.split("\n").find((text) => text.startsWith("linger-probe "));
  if (line === undefined) throw new Error(`the probe did not report; stderr:\n${result.stderr}`);
  return { status: result.status, report: JSON.parse(line.slice("linger-probe ".length)) as ProbeReport, stderr: result.stderr };
}

describe("a finished CLI run exits at once", () => {
  it("nothing keeps `outpost run --json` alive after its last output (local provider)", () => {
    const repository = scratchRepository();
    const { module } = scriptAgentModule({ FILE: "exit.txt" });
    const { status, report, stderr } = runCli(
      ["run", "--agent-module", module, "--agent", "script", "--provider", "local", "--branch", "integrate", "--json", "write exit.txt"],
      repository,
    );
    expect(status, stderr).toBe(0);
    // Timers and sockets still ref'd once output stopped are named here. Pipes of the exited agent may still
    // be closing on a loaded machine, so only what can hold a process open on its own is judged.
    expect(report.lingering.filter((kind) => /Timeout|Immediate|TCP|UDP|Signal|FSEvent|StatWatcher/.test(kind))).toEqual([]);
  });
});
