import { DESCRIPTOR_SPECIFICATION_VERSION, type AgentDescriptor } from "@outpost/core";
import { geminiAgent } from "./gemini-agent.js";
import { geminiConversationStore } from "./gemini-conversation-store.js";
import { GEMINI_FEATURES } from "./gemini-features.js";
import { GEMINI_CLI } from "./gemini-version.js";

/** How hosts (the outpost CLI, doctor) find, check and build this agent without knowing it by name. */
export const descriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: "gemini",
  description: "Gemini CLI (Google)",
  executable: "gemini",
  cli: GEMINI_CLI,
  variables: { apiKey: "GEMINI_API_KEY" },
  features: GEMINI_FEATURES,
  createAgent: (options) => geminiAgent(options),
  createStore: () => geminiConversationStore(),
};
