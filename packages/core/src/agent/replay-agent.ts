import type { AgentEvent } from "./agent-event.js";
import type { AgentFeatures } from "./agent-features.js";
import type { Usage } from "./usage.js";
import type { FailureClassification } from "./agent-event.js";

/** What a replay does when the world differs from the journal: `fail` throws (code `replay`), `warn` reports and continues. */
export type ReplayDivergencePolicy = "fail" | "warn";

/** Who, where and when of one side of a commit, exactly as git stored it. */
export interface RecordedIdentity {
  readonly name: string;
  readonly email: string;
  /** Seconds since the epoch and zone offset, as in the commit object: `1700000000 +0100`. */
  readonly date: string;
}

/** A commit the agent made, recorded so that a replay rebuilds the identical commit from the same parent. */
export interface RecordedCommit {
  readonly id: string;
  readonly tree: string;
  readonly parents: readonly string[];
  readonly author: RecordedIdentity;
  readonly committer: RecordedIdentity;
  readonly message: string;
  /** `git diff --binary --full-index` from the first parent, verified at record time to rebuild `tree`. */
  readonly patch: string;
}

/** One recorded event with its offset from the start of its turn. */
export interface ReplayEvent {
  readonly atMs: number;
  readonly event: AgentEvent;
}

/** A steering instruction written into a running turn, and where in its event stream it arrived. */
export interface ReplayInjection {
  readonly text: string;
  /** How many of the turn's events had been seen when it was delivered. */
  readonly afterEvents: number;
}

/** A recorded switch of a fallback chain: this turn's agent failed, `to` ran the brief next. */
export interface ReplayFallback {
  readonly from: string;
  readonly to: string;
  readonly classification: FailureClassification;
  readonly rule?: string;
  readonly message: string;
  /** What the failed candidate consumed; counted in the answering turn's usage. */
  readonly usage?: Usage;
}

/** One recorded turn of a journal, in execution order. */
export interface ReplayTurn {
  readonly pass: number;
  readonly prompt: string;
  /** Instructions that resumed this turn, when it was a steering resumption. */
  readonly steering?: readonly string[];
  /** The agent that ran the turn (a fallback chain's candidate), when the journal names it. */
  readonly agent?: string;
  /** The correction attempt of a typed response this turn was (1-based), when it was one. */
  readonly repair?: number;
  /** Instructions injected into the running turn, each after the number of this turn's events seen before it. */
  readonly injections?: readonly ReplayInjection[];
  /** The turn failed and the fallback chain moved on to its next candidate. */
  readonly fallback?: ReplayFallback;
  readonly events: readonly ReplayEvent[];
  readonly text: string;
  readonly usage: Usage;
  readonly conversationId?: string;
  readonly marker?: string;
  readonly settled: boolean;
  readonly durationMs: number;
  /** `steering` when the recorded turn was stopped so that steering instructions could resume it. */
  readonly interrupted?: "steering";
  /** Commits made during the turn, oldest first; empty when the journal was not replayable. */
  readonly commits: readonly RecordedCommit[];
  /** False when the journal ends inside this turn (a crash): its end and commits were not journaled. */
  readonly complete: boolean;
}

/** An agent that replays a recorded journal instead of running a CLI; single use. */
export interface ReplayAgent extends AgentFeatures {
  readonly kind: "replay";
  /** `harness` when the journal came from the Outpost harness, otherwise `agent`. */
  readonly source: "agent" | "harness";
  readonly divergence: ReplayDivergencePolicy;
  readonly turns: readonly ReplayTurn[];
  readonly remainingTurns: number;
  /** Consumes and returns the next recorded turn; undefined when the journal is exhausted. */
  nextTurn(): ReplayTurn | undefined;
  /** Instructions that resumed the next recorded turn, without consuming it. */
  pendingSteering(): readonly string[] | undefined;
}
