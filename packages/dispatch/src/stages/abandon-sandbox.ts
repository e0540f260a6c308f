import { redactConversation } from "../redact/redact-conversation.js";
import { isOutpostError, type ConversationRecord } from "@outpost/core";
import { captureConversation } from "../conversation/capture-conversation.js";
import type { DispatchState } from "./dispatch-state.js";
import { closeBoundary, settleRelease } from "./sync-back-stage.js";
import { rescueRemoteWork } from "../remote/rescue-remote-work.js";
import { archiveRecovery } from "../remote/archive-recovery.js";

/**
 * After a failure while the sandbox is held: saves what the failed turn said (so the conversation can be
 * continued from the recovery details), rescues a remote sandbox's commits into the recovery location, then releases the lease and closes the git boundary. Each step
 * runs even when the one before failed; a failed clean-up marks the activity record for `outpost clean`.
 */
export async function abandonSandbox(state: DispatchState, error: unknown): Promise<void> {
  await settleRelease(state).catch((releasing: unknown) => {
    state.cleanupFailed = true;
    state.observers.warn(`After the failure, the sandbox could not be released: ${String(releasing)}`);
  });
  const sandbox = state.sandbox;
  if (!sandbox) return;
  state.sandbox = undefined;
  const { observers, conversationId } = state;
  if (conversationId && state.conversation?.id !== conversationId && !isOutpostError(error, "session")) {
    // Without the dispatch's signal: after an abort the capture must still run (bounded by its own deadline).
    const rescue = { ...sandbox.context, signal: AbortSignal.timeout(60_000) };
    const rescued = await captureConversation(state.agent, conversationId, rescue, (message) => observers.warn(message)).catch(
      (): { record?: ConversationRecord } => ({}),
    );
    await redactConversation(state.redactor, rescued.record, (message) => observers.warn(message));
    state.conversation = rescued.record;
  }
  // Once the agent ran, its commits exist only in the remote sandbox: they are rescued before it goes.
  if (
    state.options.sandboxProvider.placement === "remote" &&
    state.workspace?.branch &&
    (state.phase === "turns" || state.phase === "syncBack")
  ) {
    const { workspace, staging, dispatchId } = state;
    state.rescued = await rescueRemoteWork(workspace, sandbox.lease, staging, state.resolved.limits.bundleBytes, dispatchId).catch(
      (rescuing: unknown) => {
        observers.warn(`After the failure, the sandbox's commits could not be rescued: ${String(rescuing)}`);
        return undefined;
      },
    );
    const transport = state.options.recoveryTransport;
    if (state.rescued && transport)
      await archiveRecovery(state.rescued, transport, dispatchId, AbortSignal.timeout(120_000)).catch((archiving: unknown) =>
        observers.warn(`The rescued work is in ${state.rescued!.location}, but archiving it failed: ${String(archiving)}`),
      );
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
