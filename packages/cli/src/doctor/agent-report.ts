import { affectedFeatures, compareVersions, OutpostError, probeCliVersion, type AgentDescriptor, type CliProbeTarget } from "@outpost/core";
import { agentOptions, agentVariablePrefix } from "../agents/load-agent.js";

/** One agent's CLI where a run would start it, against what its plugin pins and tests. */
export interface AgentCliReport {
  readonly agent: string;
  readonly executable: string;
  readonly installed?: string;
  readonly pinned?: string;
  readonly tested?: { readonly oldest: string; readonly newest: string };
  /**
   * `ok`; `outside-tested-range` (runs; `affected` names what differs); `timeout` (`--version` did not
   * answer in the budget: a run treats the version as unknown); `unreadable` (it answered no version);
   * `not-found`; `misconfigured` (the agent cannot be built from this environment); `untracked` (found, the
   * plugin has no version table).
   */
  readonly status: "ok" | "outside-tested-range" | "timeout" | "unreadable" | "not-found" | "misconfigured" | "untracked";
  /**
   * Whether a key is set (OUTPOST_API_KEY or the variable the plugin names, in the environment or, as the
   * agent's commands get it, in the checkout's `.outpost/.env`); its value is never printed.
   */
  readonly credentials: "present" | "missing";
  /** Where the key was found when present. */
  readonly credentialsFrom?: "environment" | ".outpost/.env";
  readonly problem?: string;
  /** For a version outside the tested range: the features it has otherwise than the pinned release. */
  readonly affected?: readonly string[];
  /** For an unknown version: what a run then does (`fork is refused`). */
  readonly unknownEffect?: string;
}

export interface AgentProbeSetting {
  readonly target: CliProbeTarget;
  /** Set for a host sandbox: the project's node_modules/.bin is searched from here, as `outpost run` does. */
  readonly projectDirectory?: string;
  /** Where the CLI may write its caches during the probe (removed afterwards). */
  readonly cacheDirectory: string;
  /** The checkout's `.outpost/.env` variables: a run gives them to every agent command, under the agent's own. */
  readonly envFile?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/** Builds the agent as `outpost run` would and asks its CLI for its version where the run would start it. */
export async function agentReport(descriptor: AgentDescriptor, setting: AgentProbeSetting): Promise<AgentCliReport> {
  const credentials = credentialsOf(descriptor, setting.envFile ?? {});
  const table = descriptor.features;
  const tracked = table === undefined ? {} : { pinned: table.pinned, tested: table.tested };
  let agent;
  try {
    const options = agentOptions(descriptor, {
      name: descriptor.name,
      ...(setting.projectDirectory === undefined ? {} : { projectDirectory: setting.projectDirectory }),
    });
    agent = descriptor.createAgent(options);
  } catch (error) {
    if (!OutpostError.isInstance(error)) throw error;
    const base = { agent: descriptor.name, executable: descriptor.executable, ...credentials, ...tracked } as const;
    return { ...base, status: "misconfigured", problem: error.message };
  }
  const base = { agent: descriptor.name, executable: agent.executable, ...credentials, ...tracked } as const;
  // As a run layers them: `.outpost/.env`, then the agent's own variables; a cache neither places goes to scratch.
  const variables = { XDG_CACHE_HOME: setting.cacheDirectory, ...setting.envFile, ...(agent.variables ?? {}) };
  const probe = await probeCliVersion(setting.target, {
    executable: agent.executable,
    variables,
    ...(setting.signal ? { signal: setting.signal } : {}),
  });
  if (probe.outcome === "missing") {
    const variable = `${agentVariablePrefix(descriptor.name)}_EXECUTABLE`;
    return { ...base, status: "not-found", problem: `${probe.problem ?? "not found"}: install it, or set ${variable} or --executable` };
  }
  if (probe.version === undefined) {
    return {
      ...base,
      status: probe.outcome === "timeout" ? "timeout" : "unreadable",
      problem: `${probe.problem ?? "no version"}; a run treats the version as unknown: name it with --agent-version`,
      ...(table?.unknown ? { unknownEffect: table.unknown.effect } : {}),
    };
  }
  const found = { ...base, installed: probe.version };
  if (table === undefined) return { ...found, status: "untracked" };
  const outside = compareVersions(probe.version, table.tested.oldest) < 0 || compareVersions(probe.version, table.tested.newest) > 0;
  if (!outside) return { ...found, status: "ok" };
  return { ...found, status: "outside-tested-range", affected: affectedFeatures(table, probe.version) };
}

/**
 * The key as a run finds it: OUTPOST_API_KEY or the plugin's variable in this environment (the agent's options),
 * or the plugin's variable in `.outpost/.env` (every agent command gets it). OUTPOST_API_KEY there is no key:
 * the run reads it only from the environment.
 */
function credentialsOf(
  descriptor: AgentDescriptor,
  envFile: Readonly<Record<string, string>>,
): Pick<AgentCliReport, "credentials" | "credentialsFrom"> {
  const keyVariable = descriptor.variables.apiKey;
  if (process.env.OUTPOST_API_KEY || (keyVariable !== undefined && process.env[keyVariable]))
    return { credentials: "present", credentialsFrom: "environment" };
  if (keyVariable !== undefined && envFile[keyVariable]) return { credentials: "present", credentialsFrom: ".outpost/.env" };
  return { credentials: "missing" };
}

/** Whether a run with this agent can start its CLI at all. */
export function canRun(report: AgentCliReport): boolean {
  return report.status !== "not-found" && report.status !== "misconfigured";
}
