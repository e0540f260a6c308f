import { compareVersions, learnCliVersion, OutpostError, type AgentDescriptor } from "@outpost/core";
import { agentDescriptor, agentVariablePrefix } from "../agents/load-agent.js";
import { findPlugins, type InstalledPlugin } from "../plugins/find-plugins.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import type { ProgramIo } from "../program.js";

/** One agent's CLI as this host has it, against what its plugin pins and tests. */
export interface AgentCliReport {
  readonly agent: string;
  readonly executable: string;
  readonly installed?: string;
  readonly pinned?: string;
  readonly tested?: { readonly oldest: string; readonly newest: string };
  /** `ok`, `outside-tested-range`, `not-found` (no version learned), or `untracked` (the plugin has no table). */
  readonly status: "ok" | "outside-tested-range" | "not-found" | "untracked";
  /** Whether a key is set (OUTPOST_API_KEY or the variable the plugin names); its value is never printed. */
  readonly credentials: "present" | "missing";
  readonly problem?: string;
}

/** One provider: whether what it needs (e.g. an engine) is there, and what to do when it is not. */
export interface ProviderReport {
  readonly provider: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** `outpost doctor`: every installed agent and provider, from their descriptors. */
export async function doctorCommand(flags: { readonly json?: boolean }, io: ProgramIo): Promise<number> {
  try {
    const agents: AgentCliReport[] = [];
    for (const plugin of findPlugins("agent")) agents.push(agentReport(await agentDescriptor(plugin.name)));
    const providers: ProviderReport[] = [];
    for (const plugin of findPlugins("provider")) providers.push(await providerReport(plugin));
    if (flags.json) {
      for (const entry of agents) io.stdout.write(`${JSON.stringify({ type: "agent-cli", ...entry })}\n`);
      for (const entry of providers) io.stdout.write(`${JSON.stringify({ type: "provider", ...entry })}\n`);
    } else io.stdout.write(`${describeAgents(agents)}\n${describeProviders(providers)}`);
    return EXIT_CODES.success;
  } catch (caught) {
    const error = OutpostError.isInstance(caught)
      ? caught
      : new OutpostError("process", `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}.`, { cause: caught });
    io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}

function agentReport(descriptor: AgentDescriptor): AgentCliReport {
  const executable = process.env[`${agentVariablePrefix(descriptor.name)}_EXECUTABLE`] ?? descriptor.executable;
  const keyVariable = descriptor.variables.apiKey;
  const credentials = process.env.OUTPOST_API_KEY || (keyVariable !== undefined && process.env[keyVariable]) ? "present" : "missing";
  const probe = learnCliVersion(executable, {});
  const base = { agent: descriptor.name, executable, credentials, ...(probe.version ? { installed: probe.version } : {}) } as const;
  const table = descriptor.features;
  if (table === undefined) return { ...base, status: "untracked", ...(probe.problem ? { problem: probe.problem } : {}) };
  const known = { ...base, pinned: table.pinned, tested: table.tested };
  if (probe.version === undefined) return { ...known, status: "not-found", ...(probe.problem ? { problem: probe.problem } : {}) };
  const outside = compareVersions(probe.version, table.tested.oldest) < 0 || compareVersions(probe.version, table.tested.newest) > 0;
  return { ...known, status: outside ? "outside-tested-range" : "ok" };
}

async function providerReport(plugin: InstalledPlugin): Promise<ProviderReport> {
  const descriptor = await loadDescriptor(plugin as InstalledPlugin & { kind: "provider" });
  const check = (await descriptor.check?.()) ?? { ok: true, detail: "the plugin has no check" };
  return { provider: descriptor.name, ok: check.ok, detail: check.detail };
}

function describeAgents(reports: readonly AgentCliReport[]): string {
  const rows = reports.map((entry) => [
    entry.agent,
    entry.installed ?? "-",
    entry.pinned ?? "-",
    entry.tested ? `${entry.tested.oldest}–${entry.tested.newest}` : "-",
    entry.credentials,
    entry.status === "not-found"
      ? `not found (${entry.executable}): install it or set ${agentVariablePrefix(entry.agent)}_EXECUTABLE`
      : entry.status,
  ]);
  return table(["agent", "installed", "pinned", "tested", "key", "status"], rows);
}

function describeProviders(reports: readonly ProviderReport[]): string {
  return table(
    ["provider", "status", "detail"],
    reports.map((entry) => [entry.provider, entry.ok ? "ok" : "missing", entry.detail]),
  );
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
