import { isOutpostError, type ConversationRecord } from "@outpost/core";
import { captureConversation } from "../conversation/capture-conversation.js";
import type { DispatchState } from "./dispatch-state.js";
import { closeBoundary } from "./sync-back-stage.js";

/**
 * After a failure while the sandbox is held: saves what the failed turn said (so the conversation can be
 * continued from the recovery details), then releases the lease and closes the git boundary. Each step
 * runs even when the one before failed; a failed clean-up marks the activity record for `outpost clean`.
 */
export async function abandonSandbox(state: DispatchState, error: unknown): Promise<void> {
  const sandbox = state.sandbox;
  if (!sandbox) return;
  state.sandbox = undefined;
  const { options, observers, conversationId } = state;
  if (conversationId && state.conversation?.id !== conversationId && !isOutpostError(error, "session")) {
    // Without the dispatch's signal: after an abort the capture must still run (bounded by its own deadline).
    const rescue = { ...sandbox.context, signal: AbortSignal.timeout(60_000) };
    const rescued = await captureConversation(options.agent, conversationId, rescue, (message) => observers.warn(message)).catch(
      (): { record?: ConversationRecord } => ({}),
    );
    state.conversation = rescued.record;
  }
  await sandbox.lease.release().catch((releasing: unknown) => {
    state.cleanupFailed = true;
    observers.warn(`After the failure, the sandbox could not be released: ${String(releasing)}`);
  });
  await closeBoundary(state, sandbox).catch((closing: unknown) => {
    state.cleanupFailed = true;
    observers.warn(`After the failure, ${String(closing)}`);
  });
}
