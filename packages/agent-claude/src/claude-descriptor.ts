import { DESCRIPTOR_SPECIFICATION_VERSION, type AgentDescriptor } from "@outpost/core";
import { claudeAgent } from "./claude-agent.js";
import { claudeConversationStore } from "./claude-conversation-store.js";
import { CLAUDE_FEATURES } from "./claude-features.js";
import { CLAUDE_CLI } from "./claude-version.js";

/** How hosts (the outpost CLI, doctor) find, check and build this agent without knowing it by name. */
export const descriptor: AgentDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "agent",
  name: "claude",
  description: "Claude Code (Anthropic)",
  executable: "claude",
  cli: CLAUDE_CLI,
  variables: { apiKey: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
  features: CLAUDE_FEATURES,
  createAgent: (options) => claudeAgent(options),
  modelSettings: ["reasoning", "maxOutputTokens"],
  createStore: () => claudeConversationStore(),
};
