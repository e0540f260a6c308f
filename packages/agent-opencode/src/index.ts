export { opencodeAgent, OPENCODE_CONFIG_PATH } from "./opencode-agent.js";
export type { OpencodeAgentOptions } from "./opencode-agent.js";
export { opencodeConfig, OPENCODE_API_KEY_VARIABLE } from "./opencode-config.js";
export type { OpencodeEndpoint } from "./opencode-config.js";
export { OpencodeDecoder } from "./opencode-decoder.js";
export { OPENCODE_FAILURE_RULES } from "./opencode-failure-rules.js";
export { OPENCODE_BOOTSTRAP_PACKAGE, OPENCODE_CLI_VERSION } from "./opencode-version.js";
export { opencodeConversationStore } from "./opencode-conversation-store.js";
export type { OpencodeConversationStoreOptions } from "./opencode-conversation-store.js";
