import type { DispatchResult } from "@outpost/dispatch";

/**
 * The result's conversation line. The `continue with` hint only for a conversation that was captured: an
 * uncaptured one cannot be continued, so the line says what failed instead (and `warn` is not the only trace).
 */
export function conversationLine(result: DispatchResult, agentOption: string | undefined): { text: string; failed: boolean } | undefined {
  const failure = result.conversationError;
  if (failure) {
    // The message names the conversation, when the agent reported one.
    return { text: `conversation: not captured, so it cannot be continued (${failure.code}): ${failure.message}`, failed: true };
  }
  const captured = result.conversation;
  if (captured && agentOption)
    return {
      text: `conversation: ${captured.id} (continue with: outpost run ${agentOption} --continue ${captured.id} "<brief>")`,
      failed: false,
    };
  if (result.conversationId) return { text: `conversation: ${result.conversationId}`, failed: false };
  return undefined;
}
