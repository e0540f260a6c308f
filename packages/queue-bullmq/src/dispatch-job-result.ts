import type { StoredBundle } from "./commit-bundle.js";

/** What a completed job returns through the queue (the full record is in the result transport). */
export interface DispatchJobResult {
  readonly dispatchId: string;
  /** The branch pushed to the remote with the agent's commits. */
  readonly branch: string;
  /** The commit the branch was published at. */
  readonly head: string;
  readonly commits: readonly string[];
  readonly completed: boolean;
  readonly text: string;
  readonly conversationId?: string;
  /** Key of the stored record in the result transport. */
  readonly resultKey: string;
  /** The fence token of the attempt that won. */
  readonly fence: number;
  /** The worker that ran the attempt. */
  readonly worker: string;
}

/** The record stored in the result transport: the result plus the conversation, for continuations elsewhere. */
export interface StoredDispatchResult extends DispatchJobResult {
  readonly job: string;
  /** The attempt's commits, kept in the result transport so any worker can publish the branch (absent: none). */
  readonly bundle?: StoredBundle;
  readonly conversation?: StoredConversation;
  /** The job this one continued, and the worker that ran it. */
  readonly continued?: { readonly job: string; readonly worker: string; readonly fence: number };
  readonly turns: readonly { readonly pass: number; readonly text: string; readonly conversationId?: string }[];
  readonly journal: readonly JournalLine[];
  readonly durationMs: number;
}

/** One line of the job's journal: progress as the worker saw it. */
export interface JournalLine {
  readonly at: string;
  readonly event: string;
  readonly detail?: string;
}

/** The captured conversation of an attempt, as stored beside its record. */
export interface StoredConversation {
  /** The agent's native conversation id. */
  readonly id: string;
  readonly format: string;
  /** Key in the result transport. */
  readonly key: string;
  /** The store's whole pack (restorable on another worker), not only the transcript file. */
  readonly packed: boolean;
}
