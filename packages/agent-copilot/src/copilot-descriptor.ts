import { DESCRIPTOR_SPECIFICATION_VERSION, type AgentDescriptor } from "@outpost/core";
import { copilotAgent } from "./copilot-agent.js";
import { copilotConversationStore } from "./copilot-conversation-store.js";
import { COPILOT_FEATURES } from "./copilot-features.js";
import { COPILOT_CLI } from "./copilot-version.js";

/** How hosts (the outpost CLI, doctor) find, check and build this agent without knowing it by name. */
export const descriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: "copilot",
  description: "GitHub Copilot CLI",
  executable: "copilot",
  cli: COPILOT_CLI,
  variables: { apiKey: "OPENAI_API_KEY" },
  features: COPILOT_FEATURES,
  createAgent: (options) => copilotAgent(options),
  createStore: () => copilotConversationStore(),
};
