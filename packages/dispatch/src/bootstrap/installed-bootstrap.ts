import type { AgentAdapter, ReplayAgent } from "@outpost/core";
import type { DispatchOptions } from "../dispatch-options.js";
import type { BootstrapOptions, BootstrapSource } from "./bootstrap-options.js";
import { agentDescriptorOf, installedAgents } from "../agents/installed-agents.js";

/**
 * Page 003: an agent's `bootstrap` names a built-in agent whose pinned CLI Outpost installs. The engine knows a
 * name from `bootstrap.sources` or from a candidate that carries its own pin, so a custom agent naming
 * "claude" was refused. Before the engine checks it, each name known neither way is looked up among the
 * installed agent plugins, and their descriptor's pin becomes its source; what stays unknown is refused there.
 */
export async function withInstalledBootstrap(options: DispatchOptions): Promise<DispatchOptions> {
  if (typeof options !== "object" || options === null || options.bootstrap === false) return options;
  const candidates = candidatesOf(options.agent);
  const given = typeof options.bootstrap === "object" ? options.bootstrap : undefined;
  const known = new Set([...Object.keys(given?.sources ?? {}), ...candidates.flatMap((agent) => (agent.cli ? [agent.name] : []))]);
  const wanted = [...new Set(candidates.map((agent) => agent.bootstrap))].filter(
    (name): name is string => typeof name === "string" && name !== "" && !known.has(name),
  );
  if (wanted.length === 0) return options;
  const added: Record<string, BootstrapSource> = {};
  for (const plugin of installedAgents().filter((plugin) => wanted.includes(plugin.name))) {
    const cli = (await agentDescriptorOf(plugin)).cli;
    if (cli) added[plugin.name] = { npm: { npmPackage: cli.npmPackage, version: cli.version } };
  }
  if (Object.keys(added).length === 0) return options;
  const bootstrap: BootstrapOptions = { ...given, sources: { ...added, ...given?.sources } };
  return { ...options, bootstrap };
}

function candidatesOf(agent: unknown): readonly (AgentAdapter | ReplayAgent)[] {
  if (typeof agent !== "object" || agent === null) return [];
  const chain = (agent as { candidates?: unknown }).candidates;
  return Array.isArray(chain) ? (chain as AgentAdapter[]) : [agent as AgentAdapter | ReplayAgent];
}
