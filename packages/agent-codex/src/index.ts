export { codexAgent } from "./codex-agent.js";
export type { CodexAgentOptions } from "./codex-agent.js";
export { codexConfig, CODEX_API_KEY_VARIABLE } from "./codex-config.js";
export type { CodexConfigOptions } from "./codex-config.js";
export { CodexDecoder, codexUsage } from "./codex-decoder.js";
export { CODEX_FAILURE_RULES } from "./codex-failure-rules.js";
export { CODEX_BOOTSTRAP_PACKAGE, CODEX_CLI_VERSION } from "./codex-version.js";
export { codexConversationStore } from "./codex-conversation-store.js";
export type { CodexConversationStoreOptions } from "./codex-conversation-store.js";
