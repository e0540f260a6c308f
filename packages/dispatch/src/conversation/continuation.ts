import { OutpostError, type AgentFeatures, type ConversationRecord } from "@outpost/core";

/**
 * Finds the captured conversation a cold continuation restores, before anything is allocated.
 * Agents without storage are refused earlier (resolveOptions): a cold continuation needs storage.
 */
export async function locateContinuation(
  agent: AgentFeatures,
  id: string,
  root: string,
  home?: string,
): Promise<ConversationRecord | undefined> {
  if (!agent.storage) return undefined;
  try {
    return await agent.storage.locate(id, root, home);
  } catch (error) {
    if (OutpostError.isInstance(error)) throw error;
    throw new OutpostError(
      "session",
      `Could not find conversation ${id} of ${agent.name}: ${error instanceof Error ? error.message : String(error)}. Check the id and conversationHome.`,
      { cause: error, details: { id } },
    );
  }
}
