import { OutpostError, type AgentAdapter, type CustomAgent, type FailureClassification } from "@outpost/core";
import { customAdapter, isCustomAgent } from "../agents/custom-adapter.js";

/** The classifications a fallback can be triggered by (an agent's failure rules give them). */
export const FALLBACK_CLASSIFICATIONS: readonly FailureClassification[] = Object.freeze(["quota", "unavailable"]);

export interface FallbackAgentOptions {
  /** Failure classes that move on to the next candidate; any other failure fails the dispatch as before. */
  readonly on: readonly FailureClassification[];
}

/** Candidates tried in order: when a turn fails with a listed classification, the next one runs the original brief. */
export interface FallbackAgent {
  readonly kind: "fallback";
  /** `claude→codex`: shown in progress reports and activity records. */
  readonly name: string;
  readonly candidates: readonly AgentAdapter[];
  readonly on: readonly FailureClassification[];
}

/** What `dispatch()` accepts as `agent` (besides a replay agent): a CLI agent, a custom one, or a chain. */
export type DispatchAgent = AgentAdapter | CustomAgent | FallbackAgent;

/** Builds a fallback chain; refuses an empty chain or an unknown class with code `configuration`. */
export function createFallbackAgent(candidates: readonly (AgentAdapter | CustomAgent)[], options: FallbackAgentOptions): FallbackAgent {
  if (!Array.isArray(candidates) || candidates.length === 0)
    throw new OutpostError("configuration", "createFallbackAgent() needs at least one candidate agent, in the order they should be tried.");
  for (const [index, candidate] of candidates.entries()) {
    if (!candidate || !["cli", "custom"].includes((candidate as { kind?: unknown }).kind as string))
      throw new OutpostError(
        "configuration",
        `Candidate ${index} of createFallbackAgent() is not a CLI or custom agent (a fallback chain cannot nest). Pass agents such as claudeAgent() or createAgent()'s.`,
      );
  }
  const on = options?.on;
  if (!Array.isArray(on) || on.length === 0 || on.some((entry) => !FALLBACK_CLASSIFICATIONS.includes(entry)))
    throw new OutpostError(
      "configuration",
      `createFallbackAgent() needs on: a non-empty list of ${FALLBACK_CLASSIFICATIONS.map((entry) => `"${entry}"`).join(", ")}, got ${JSON.stringify(on)}.`,
    );
  return Object.freeze({
    kind: "fallback" as const,
    name: candidates.map((candidate) => candidate.name).join("→"),
    // A custom candidate runs as the engine's CLI path does (custom-adapter.ts), once for the chain.
    candidates: Object.freeze(candidates.map((candidate) => (isCustomAgent(candidate) ? customAdapter(candidate) : candidate))),
    on: Object.freeze([...new Set(on)]),
  });
}

export function isFallbackAgent(agent: unknown): agent is FallbackAgent {
  return typeof agent === "object" && agent !== null && (agent as { kind?: unknown }).kind === "fallback";
}

/** The agents of an agent option: the chain's candidates, or the agent alone. */
export function candidatesOf(agent: DispatchAgent): readonly (AgentAdapter | CustomAgent)[] {
  return isFallbackAgent(agent) ? agent.candidates : [agent];
}
