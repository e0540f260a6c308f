export { claudeAgent, claudeHomeFiles } from "./claude-agent.js";
export type { ClaudeAgentOptions } from "./claude-agent.js";
export { ClaudeDecoder, claudeUsage } from "./claude-decoder.js";
export { CLAUDE_FAILURE_RULES } from "./claude-failure-rules.js";
export { CLAUDE_BOOTSTRAP_PACKAGE, CLAUDE_CLI_VERSION } from "./claude-version.js";
export { CLAUDE_CREDENTIAL_FILES, claudeConversationStore, claudeProjectSlug } from "./claude-conversation-store.js";
export type { ClaudeConversationStoreOptions } from "./claude-conversation-store.js";
export { CLAUDE_FEATURES } from "./claude-features.js";
export type { ClaudeFeatures } from "./claude-features.js";
