import { agentVariablePrefix } from "../agents/load-agent.js";
import type { AgentCliReport } from "./agent-report.js";
import type { EnvFileReport } from "./env-file-report.js";
import type { ProviderReport } from "./doctor-command.js";

/** The agents as a table: what runs, against what is pinned and tested, and what to do about it. */
export function describeAgents(reports: readonly AgentCliReport[]): string {
  const rows = reports.map((entry) => [
    entry.agent,
    entry.installed ?? "-",
    entry.pinned ?? "-",
    entry.tested ? `${entry.tested.oldest}–${entry.tested.newest}` : "-",
    entry.credentialsFrom === ".outpost/.env" ? "present (.outpost/.env)" : entry.credentials,
    statusText(entry),
  ]);
  return table(["agent", "installed", "pinned", "tested", "key", "status"], rows);
}

export function describeProviders(reports: readonly ProviderReport[]): string {
  return table(
    ["provider", "status", "detail"],
    reports.map((entry) => [entry.provider, entry.ok ? "ok" : "missing", entry.detail]),
  );
}

/** One line on the checkout's `.outpost/.env`: the names it sets (never the values), or why runs refuse it. */
export function describeEnvFile(report: EnvFileReport): string {
  if (report.status === "refused") return `${report.path}: refused: ${report.problem ?? ""}\n`;
  if (report.status === "absent") return `${report.path}: absent (no variables for agent commands)\n`;
  const names = report.variables.length > 0 ? report.variables.join(", ") : "none";
  return `${report.path}: every agent command gets ${names}\n`;
}

function statusText(entry: AgentCliReport): string {
  switch (entry.status) {
    case "not-found":
      return `not found (${entry.executable}): install it or set ${agentVariablePrefix(entry.agent)}_EXECUTABLE`;
    case "outside-tested-range":
      return entry.affected?.length
        ? `outside the tested range: affects ${entry.affected.join(", ")}`
        : "outside the tested range: runs, flags and events not verified";
    case "timeout":
    case "unreadable":
      return `${entry.status}: ${entry.problem ?? ""}${entry.unknownEffect ? ` (${entry.unknownEffect})` : ""}`;
    case "misconfigured":
      return `misconfigured: ${entry.problem ?? ""}`;
    case "untracked":
      return "found (the plugin tracks no versions)";
    default:
      return entry.status;
  }
}

function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  return (
    [header, ...rows]
      .map((row) =>
        row
          .map((cell, column) => cell.padEnd(widths[column]!))
          .join("  ")
          .trimEnd(),
      )
      .join("\n") + "\n"
  );
}
