import { OutpostError, type AgentAdapter, type ReplayAgent } from "@outpost/core";

/**
 * `requireConversation` needs every agent that may answer to capture its conversation: refused before anything
 * is allocated, rather than failing after the agent's work.
 */
export function assertCanRequireConversation(required: unknown, candidates: readonly (AgentAdapter | ReplayAgent)[]): void {
  if (required === undefined || required === false) return;
  if (required !== true)
    throw new OutpostError("configuration", `requireConversation must be true or false, got ${JSON.stringify(required)}.`);
  for (const candidate of candidates) {
    if (candidate.kind === "replay")
      throw new OutpostError(
        "configuration",
        "A replay agent captures no conversation, so requireConversation cannot be met. Drop requireConversation to replay.",
      );
    if (!candidate.storage || candidate.capture === false)
      throw new OutpostError(
        "configuration",
        `${candidate.name} ${candidate.storage ? "has capture turned off" : "has no conversation storage"}, so requireConversation cannot be met. ` +
          "Give the agent a storage (a ConversationStore) with capture on, or drop requireConversation.",
      );
  }
}
