import { OutpostError, type OutpostErrorCode } from "@outpost/core";

/**
 * Why the last turn's conversation was not captured, so the result cannot be continued
 * (`DispatchResult.conversationError`). A later turn whose capture succeeds clears it.
 */
export interface ConversationError {
  /** The store's OutpostError code; `session` when it threw anything else or the agent reported no id. */
  readonly code: OutpostErrorCode;
  /** What failed, with the store's advice. */
  readonly message: string;
  /** The id the agent reported, when it reported one. */
  readonly conversationId?: string;
  readonly pass: number;
}

/** After a turn's capture: a captured conversation clears the error, a failed capture replaces it. */
export function conversationErrorAfter(
  previous: ConversationError | undefined,
  captured: { readonly record?: unknown; readonly failure?: Pick<ConversationError, "code" | "message"> },
  pass: number,
  conversationId: string | undefined,
): ConversationError | undefined {
  if (captured.record) return undefined;
  if (!captured.failure) return previous;
  return { ...captured.failure, pass, ...(conversationId ? { conversationId } : {}) };
}

/** With `requireConversation`: the dispatch fails with code `session` (the work is kept, as for any failure). */
export function requiredConversationError(failure: ConversationError): OutpostError {
  return new OutpostError("session", `The conversation was required but could not be captured (${failure.code}): ${failure.message}`, {
    details: { conversationError: { ...failure } },
  });
}
