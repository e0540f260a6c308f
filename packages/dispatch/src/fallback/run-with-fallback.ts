import { addUsage, isOutpostError, OutpostError, type AgentAdapter, type FailureClassification, type Usage } from "@outpost/core";

/** A candidate that did not answer, and why. */
export interface FallbackSkip {
  readonly agent: string;
  readonly classification: FailureClassification;
  /** The id of the failure rule that matched. */
  readonly rule?: string;
  readonly message: string;
}

/** `result.fallback`: who answered, and who was skipped before. */
export interface FallbackReport {
  readonly agent: string;
  readonly skipped: readonly FallbackSkip[];
}

export interface FallbackRunInput<R> {
  readonly candidates: readonly AgentAdapter[];
  readonly on: readonly FailureClassification[];
  /** Runs the brief with one candidate; prepares it first (lazily: a candidate never reached is never prepared). */
  readonly run: (agent: AgentAdapter, index: number) => Promise<R>;
  /** Called before the next candidate starts; `usage`: what the skipped candidate consumed. */
  readonly onFallback?: (skip: FallbackSkip, next: AgentAdapter, usage: Usage) => void;
}

export interface FallbackRun<R> {
  readonly outcome: R;
  readonly agent: AgentAdapter;
  readonly report: FallbackReport;
  /** What the skipped candidates consumed before failing. */
  readonly skippedUsage: Usage;
}

/**
 * Tries candidates in order. A failure classified (by the failing agent's own failure rules) as one of `on`
 * moves on; any other failure, an abort included, or the last candidate's failure is thrown, with the skipped
 * candidates in `details.fallback`.
 */
export async function runWithFallback<R>(input: FallbackRunInput<R>): Promise<FallbackRun<R>> {
  const skipped: FallbackSkip[] = [];
  let skippedUsage: Usage = {};
  for (const [index, agent] of input.candidates.entries()) {
    try {
      const outcome = await input.run(agent, index);
      return { outcome, agent, report: { agent: agent.name, skipped }, skippedUsage };
    } catch (error) {
      const classification = fallbackClass(error, input.on);
      const next = input.candidates[index + 1];
      if (!classification || !next) throw skipped.length > 0 ? withSkipped(error, skipped) : error;
      const details = (error as OutpostError).details;
      const spent = isUsage(details["usage"]) ? details["usage"] : {};
      skippedUsage = addUsage(skippedUsage, spent);
      const skip: FallbackSkip = {
        agent: agent.name,
        classification,
        ...(typeof details["rule"] === "string" ? { rule: details["rule"] } : {}),
        message: (error as OutpostError).message,
      };
      skipped.push(skip);
      input.onFallback?.(skip, next, spent);
    }
  }
  // Unreachable: the loop returns or throws for the last candidate.
  throw new OutpostError("configuration", "A fallback agent needs at least one candidate.");
}

/** The listed classification of a failed turn, or undefined when it must not fall back. */
export function fallbackClass(error: unknown, on: readonly FailureClassification[]): FailureClassification | undefined {
  if (!isOutpostError(error) || error.code === "aborted") return undefined;
  const classification = error.details["classification"];
  return typeof classification === "string" && (on as readonly string[]).includes(classification)
    ? (classification as FailureClassification)
    : undefined;
}

function withSkipped(error: unknown, skipped: readonly FallbackSkip[]): unknown {
  if (!isOutpostError(error)) return error;
  const before = skipped.map((skip) => `${skip.agent} (${skip.classification})`).join(", ");
  return new OutpostError(error.code, `${error.message} Candidates skipped before it: ${before}.`, {
    cause: error.cause,
    details: { ...error.details, fallback: { skipped } },
  });
}

function isUsage(value: unknown): value is Usage {
  return typeof value === "object" && value !== null;
}
