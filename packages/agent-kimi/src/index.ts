export { kimiAgent } from "./kimi-agent.js";
export type { KimiAgentOptions, KimiEndpoint } from "./kimi-agent.js";
export { KimiDecoder } from "./kimi-decoder.js";
export { KIMI_CREDENTIAL_FILES, kimiSessionProfile } from "./kimi-session-profile.js";
export { kimiCliSessionProfile } from "./kimi-cli-session-profile.js";
export { kimiConversationStore } from "./kimi-conversation-store.js";
export type { KimiConversationStoreOptions } from "./kimi-conversation-store.js";
export { descriptor } from "./kimi-descriptor.js";
