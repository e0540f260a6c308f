import { DESCRIPTOR_SPECIFICATION_VERSION, type AgentDescriptor } from "@outpost/core";
import { codexAgent } from "./codex-agent.js";
import { codexConversationStore } from "./codex-conversation-store.js";
import { CODEX_FEATURES } from "./codex-features.js";
import { CODEX_CLI } from "./codex-version.js";

/** How hosts (the outpost CLI, doctor) find, check and build this agent without knowing it by name. */
export const descriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: "codex",
  description: "Codex CLI (OpenAI)",
  executable: "codex",
  cli: CODEX_CLI,
  variables: { apiKey: "OPENAI_API_KEY" },
  features: CODEX_FEATURES,
  createAgent: (options) => codexAgent(options),
  // The pinned codex has no setting for the answer's length.
  modelSettings: ["reasoning"],
  createStore: () => codexConversationStore(),
};
