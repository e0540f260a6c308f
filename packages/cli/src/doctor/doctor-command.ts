import { compareVersions, learnCliVersion, OutpostError, type CliFeatureTable } from "@outpost/core";
import { AGENT_NAMES } from "../agents/agent-names.js";
import { loadAgent } from "../agents/load-agent.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import type { ProgramIo } from "../program.js";

/** One agent's CLI as this host has it, against what its plugin pins and the version matrix tests. */
export interface AgentCliReport {
  readonly agent: string;
  readonly executable: string;
  readonly installed?: string;
  readonly pinned?: string;
  readonly tested?: { readonly oldest: string; readonly newest: string };
  /** `ok`, `outside-tested-range`, `not-found` (no version learned), or `untracked` (the plugin has no table). */
  readonly status: "ok" | "outside-tested-range" | "not-found" | "untracked";
  readonly problem?: string;
}

/** `outpost doctor`: installed vs pinned vs tested release of each built-in agent's CLI (executable from OUTPOST_<AGENT>_EXECUTABLE or PATH). */
export async function doctorCommand(flags: { readonly json?: boolean }, io: ProgramIo): Promise<number> {
  try {
    const reports: AgentCliReport[] = [];
    for (const name of AGENT_NAMES) reports.push(await report(name));
    if (flags.json) for (const entry of reports) io.stdout.write(`${JSON.stringify({ type: "agent-cli", ...entry })}\n`);
    else io.stdout.write(describe(reports));
    return EXIT_CODES.success;
  } catch (caught) {
    const error = OutpostError.isInstance(caught) ? caught : new OutpostError("process", `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}.`, { cause: caught });
    io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}

async function report(name: string): Promise<AgentCliReport> {
  const agent = await loadAgent({ name });
  const module = (await import(`@outpost/agent-${name}`)) as Record<string, unknown>;
  const table = module[`${name.toUpperCase()}_FEATURES`] as CliFeatureTable<unknown> | undefined;
  const probe = learnCliVersion(agent.executable, agent.variables ?? {});
  const base = { agent: name, executable: agent.executable, ...(probe.version ? { installed: probe.version } : {}) };
  if (table === undefined) return { ...base, status: "untracked", ...(probe.problem ? { problem: probe.problem } : {}) };
  const known = { ...base, pinned: table.pinned, tested: table.tested };
  if (probe.version === undefined) return { ...known, status: "not-found", ...(probe.problem ? { problem: probe.problem } : {}) };
  const outside = compareVersions(probe.version, table.tested.oldest) < 0 || compareVersions(probe.version, table.tested.newest) > 0;
  return { ...known, status: outside ? "outside-tested-range" : "ok" };
}

function describe(reports: readonly AgentCliReport[]): string {
  const rows = reports.map((entry) => [
    entry.agent,
    entry.installed ?? "-",
    entry.pinned ?? "-",
    entry.tested ? `${entry.tested.oldest}–${entry.tested.newest}` : "-",
    entry.status === "not-found" ? `not found (${entry.executable})` : entry.status,
  ]);
  const header = ["agent", "installed", "pinned", "tested", "status"];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return [header, ...rows].map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join("  ").trimEnd()).join("\n") + "\n";
}
