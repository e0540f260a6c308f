import { DESCRIPTOR_SPECIFICATION_VERSION, type AgentDescriptor } from "@outpost/core";
import { opencodeAgent } from "./opencode-agent.js";
import { opencodeConversationStore } from "./opencode-conversation-store.js";
import { OPENCODE_FEATURES } from "./opencode-features.js";
import { OPENCODE_CLI } from "./opencode-version.js";

/** How hosts (the outpost CLI, doctor) find, check and build this agent without knowing it by name. */
export const descriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: "opencode",
  description: "opencode",
  executable: "opencode",
  cli: OPENCODE_CLI,
  variables: { apiKey: "OPENAI_API_KEY" },
  features: OPENCODE_FEATURES,
  createAgent: (options) => opencodeAgent(options),
  createStore: () => opencodeConversationStore(),
};
