import type { AgentEvent, RecordedCommit, ReplayFallback, Usage } from "@outpost/core";
import type { JournalSignature } from "./journal-seal.js";

/** The index version this code writes and reads; a newer index is refused with a clear error. */
export const JOURNAL_VERSION = 2;
export const JOURNAL_INDEX_FORMAT = "outpost-journal";
export const JOURNAL_SEGMENT_FORMAT = "outpost-journal-segment";

/** Everything a dispatch journals, one record at a time, in order. */
export type JournalRecord =
  | {
      readonly kind: "turn-start";
      readonly pass: number;
      readonly prompt: string;
      readonly steering?: readonly string[];
      /** The agent that ran the turn (a fallback chain's candidate). */
      readonly agent?: string;
      /** The typed-response correction this turn was, 1-based. */
      readonly repair?: number;
    }
  | { readonly kind: "event"; readonly pass: number; readonly atMs: number; readonly event: AgentEvent }
  | {
      readonly kind: "turn-end";
      readonly pass: number;
      readonly text: string;
      readonly usage: Usage;
      readonly conversationId?: string;
      readonly marker?: string;
      readonly settled: boolean;
      readonly durationMs: number;
      /** The turn was stopped for steering; the next turn resumed it with the instructions. */
      readonly interrupted?: "steering";
    }
  | { readonly kind: "commit"; readonly pass: number; readonly commit: RecordedCommit }
  /** A steering instruction written into the running turn; its place among the turn's event records is where it arrived. */
  | {
      readonly kind: "steer";
      readonly pass: number;
      readonly delivery: "injected";
      readonly text: string;
      /** Milliseconds since the dispatch started (its place in the turn is its place among the records). */
      readonly atMs: number;
    }
  /** The turn's agent failed with a listed classification and the fallback chain moved on to `to`. */
  | ({ readonly kind: "fallback"; readonly pass: number } & ReplayFallback);

/** One immutable segment: written once (create-only), never rewritten. */
export interface JournalSegment {
  readonly format: typeof JOURNAL_SEGMENT_FORMAT;
  readonly journalId: string;
  readonly sequence: number;
  readonly records: readonly JournalRecord[];
}

/** How the index lists a segment; the digest lets a reader detect a damaged or replaced segment. */
export interface JournalSegmentEntry {
  readonly key: string;
  readonly sequence: number;
  readonly records: number;
  readonly bytes: number;
  readonly sha256: string;
  /** The digest chain up to and including this segment (version 2 on). */
  readonly chain?: string;
}

/** `recording` while the dispatch runs (and forever after a crash); `complete` or `failed` once it ended. */
export type JournalState = "recording" | "complete" | "failed";

/** The versioned index: rewritten (compare-and-swap) after each segment, so it always lists complete segments only. */
export interface JournalIndex {
  readonly format: typeof JOURNAL_INDEX_FORMAT;
  readonly version: number;
  readonly journalId: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly state: JournalState;
  /** The agent that ran: its name and whether its events came from the Outpost harness or the agent itself. */
  readonly agent: string;
  readonly source: "agent" | "harness";
  /** The commit the dispatch's work branch started from. */
  readonly baseline?: string;
  /** Every normalized event was kept (otherwise the compact record, which drops raw lines). */
  readonly verbose: boolean;
  /** Commits were recorded with verified patches, so a replay rebuilds them. */
  readonly replayable: boolean;
  readonly segments: readonly JournalSegmentEntry[];
  /** The digest chain's head: the last segment's `chain`, or its seed when there is none (version 2 on). */
  readonly chain?: string;
  /** HMAC-SHA-256 of the index without this field, when the recording had a signing key. */
  readonly signature?: JournalSignature;
}

/** Where a journal's objects live in its transport. */
export function journalIndexKey(journalId: string): string {
  return `journals/${journalId}/index.json`;
}

export function journalSegmentKey(journalId: string, sequence: number): string {
  return `journals/${journalId}/segment-${String(sequence).padStart(6, "0")}.json`;
}
