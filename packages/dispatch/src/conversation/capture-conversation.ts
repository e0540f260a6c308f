import { readFile } from "node:fs/promises";
import type { AgentFeatures, ConversationContext, ConversationRecord, Usage } from "@outpost/core";

export interface CapturedConversation {
  readonly record?: ConversationRecord;
  /** Usage read back from the transcript, when the agent knows how. */
  readonly usage?: Usage;
}

/** Saves the turn's conversation to the host; a storage problem is a warning, never a failed turn. */
export async function captureConversation(
  agent: AgentFeatures,
  id: string | undefined,
  context: ConversationContext,
  warn: (message: string) => void,
): Promise<CapturedConversation> {
  if (!agent.storage || agent.capture === false) return {};
  if (!id) {
    warn(`${agent.name} reported no conversation id, so its conversation was not captured and cannot be continued.`);
    return {};
  }
  try {
    const record = await agent.storage.capture(id, context);
    const usage = agent.transcriptUsage ? agent.transcriptUsage(await readFile(record.file, "utf8")) : undefined;
    return { record, usage };
  } catch (error) {
    warn(
      `Could not capture ${agent.name} conversation ${id}: ${error instanceof Error ? error.message : String(error)}. The turn's work is kept, but it cannot be continued elsewhere.`,
    );
    return {};
  }
}
