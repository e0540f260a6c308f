export { geminiAgent } from "./gemini-agent.js";
export type { GeminiAgentOptions } from "./gemini-agent.js";
export { GeminiDecoder, geminiUsage } from "./gemini-decoder.js";
export { GEMINI_FAILURE_RULES } from "./gemini-failure-rules.js";
export { geminiSettings } from "./gemini-settings.js";
export type { GeminiSettingsOptions } from "./gemini-settings.js";
export { GEMINI_BOOTSTRAP_PACKAGE, GEMINI_CLI_VERSION } from "./gemini-version.js";
export { geminiConversationStore, geminiProjectSlug, geminiShortName } from "./gemini-conversation-store.js";
export type { GeminiConversationStoreOptions } from "./gemini-conversation-store.js";
