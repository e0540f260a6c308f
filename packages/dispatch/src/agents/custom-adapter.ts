import { OutpostError, type AgentAdapter, type AgentForkContext, type CustomAgent } from "@outpost/core";

/** The fork hooks of the adapters made from custom agents: the turn calls one before it starts (fork-hook.ts). */
const forkHooks = new WeakMap<AgentAdapter, NonNullable<CustomAgent["fork"]>>();
/** Every adapter made from a custom agent. */
const adapters = new WeakSet<AgentAdapter>();

export function isCustomAgent(agent: unknown): agent is CustomAgent {
  return typeof agent === "object" && agent !== null && (agent as { kind?: unknown }).kind === "custom";
}

/**
 * Runs a custom agent through the engine's CLI path: `request()` is its `command()`. Why one path rather than
 * two: events, markers, timers, capture and usage must be the CLI agents' own, not a copy that drifts. Its
 * live input is left out on purpose: a live session would build its own command and bypass `request()`, so
 * steering stops and resumes a custom agent. Made once per dispatch, before anything is allocated.
 */
export function customAdapter(agent: CustomAgent): AgentAdapter {
  if (typeof agent.request !== "function" || typeof agent.createDecoder !== "function")
    throw new OutpostError(
      "configuration",
      `The custom agent ${String(agent.name)} needs request(turn), which builds each turn's process, and createDecoder(), which reads its output.`,
    );
  if (agent.fork !== undefined && typeof agent.fork !== "function")
    throw new OutpostError("configuration", `The custom agent ${agent.name}'s fork must be a function (the fork hook), or be left out.`);
  if (agent.cliVersion !== undefined && typeof agent.executable !== "string")
    throw new OutpostError(
      "configuration",
      `The custom agent ${agent.name} asks for its CLI version to be learned (cliVersion) but names no executable to ask.`,
    );
  const adapter: AgentAdapter = {
    kind: "cli",
    ...(agent.specificationVersion !== undefined ? { specificationVersion: agent.specificationVersion } : {}),
    name: agent.name,
    // What bootstrap looks for on a remote sandbox (and cliVersion asks): the CLI the requests run; without
    // one named, the built-in agent bootstrap installs, whose executable bears its name.
    executable: agent.executable ?? agent.bootstrap ?? agent.name,
    ...features(agent),
    command: (turn) => agent.request(turn),
    createDecoder: (context) => agent.createDecoder(context),
    ...(agent.homeFiles ? { homeFiles: (turn) => agent.homeFiles!(turn) } : {}),
    ...(agent.unsupported ? { unsupported: (feature, learned) => agent.unsupported!(feature, learned) } : {}),
    ...(agent.cliWarnings ? { cliWarnings: (learned) => agent.cliWarnings!(learned) } : {}),
    ...(agent.cliVersion ? { cliVersion: agent.cliVersion } : {}),
    ...(agent.failureRules ? { failureRules: agent.failureRules } : {}),
  };
  adapters.add(adapter);
  if (agent.fork) forkHooks.set(adapter, (id: string, context: AgentForkContext) => agent.fork!(id, context));
  return adapter;
}

/** True for an adapter made from a custom agent: its request() is the caller's code, asked only for real turns. */
export function isCustomAdapter(agent: unknown): boolean {
  return typeof agent === "object" && agent !== null && adapters.has(agent as AgentAdapter);
}

/** The fork hook of an adapter made from a custom agent, if it has one. */
export function forkHookOf(agent: unknown): CustomAgent["fork"] | undefined {
  return typeof agent === "object" && agent !== null ? forkHooks.get(agent as AgentAdapter) : undefined;
}

/** The feature flags of page 003, copied as given (an omitted one stays omitted: its default applies). */
function features(agent: CustomAgent): Partial<AgentAdapter> {
  const copied: Record<string, unknown> = {};
  for (const key of FEATURES) if (agent[key] !== undefined) copied[key] = agent[key];
  return copied;
}

const FEATURES = [
  "bootstrap",
  "cli",
  "requiresFinishedEvent",
  "usage",
  "variables",
  "storage",
  "capture",
  "resumable",
  "namesConversations",
  "forkable",
  "transcriptUsage",
] as const satisfies readonly (keyof CustomAgent)[];
