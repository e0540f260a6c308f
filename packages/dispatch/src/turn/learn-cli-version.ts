import { OutpostError, probeCliVersion, type AgentAdapter, type LearnedCliVersion, type SandboxLease } from "@outpost/core";

export interface LearnCliVersionInput {
  readonly agent: AgentAdapter;
  readonly lease: SandboxLease;
  /** The variables the agent's command gets from the engine (provider, agent, git identity). */
  readonly variables: Readonly<Record<string, string>>;
  /** Whether a turn will fork: refused now when the release learned cannot. */
  readonly fork: boolean;
  readonly signal?: AbortSignal;
  /** Says the release's warnings (untested, unknown) in the user's normal output. */
  readonly warn: (message: string) => void;
}

const learned = new WeakMap<SandboxLease, WeakMap<AgentAdapter, Promise<LearnedCliVersion>>>();

/**
 * The agent's CLI release as the lease has it: asked there once per lease and agent (the probe also caches
 * by the executable's identity), its warnings said once. Undefined for an agent whose command does not
 * depend on its release. A fork the release cannot do (or an unknown release, for an agent whose fork
 * depends on it) is refused here, before the turn starts.
 */
export async function learnCliVersion(input: LearnCliVersionInput): Promise<LearnedCliVersion | undefined> {
  const { agent, lease } = input;
  if (agent.cliVersion === undefined) return undefined;
  let byAgent = learned.get(lease);
  if (!byAgent) learned.set(lease, (byAgent = new WeakMap()));
  let known = byAgent.get(agent);
  if (!known) {
    known = learn(input);
    byAgent.set(agent, known);
    known.catch(() => byAgent.delete(agent));
  }
  const version = await known;
  const refused = input.fork ? agent.unsupported?.("fork", version) : undefined;
  if (refused !== undefined) throw new OutpostError("configuration", refused, { details: { agent: agent.name, ...version } });
  return version;
}

async function learn(input: LearnCliVersionInput): Promise<LearnedCliVersion> {
  const { agent, lease } = input;
  const given = agent.cliVersion?.given;
  let version: LearnedCliVersion;
  if (given !== undefined) version = { version: given };
  else {
    // The command's own variables win over the engine's, as when the turn runs.
    const variables = { ...input.variables, ...(agent.variables ?? {}) };
    const probe = await probeCliVersion(lease, {
      executable: agent.executable,
      variables,
      ...(input.signal ? { signal: input.signal } : {}),
    });
    version = probe.version ? { version: probe.version } : { ...(probe.problem ? { problem: probe.problem } : {}) };
  }
  for (const warning of agent.cliWarnings?.(version) ?? []) input.warn(warning);
  return version;
}
