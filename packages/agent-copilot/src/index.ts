export { copilotAgent } from "./copilot-agent.js";
export type { CopilotAgentOptions, CopilotEndpoint } from "./copilot-agent.js";
export { CopilotDecoder } from "./copilot-decoder.js";
export { COPILOT_FAILURE_RULES } from "./copilot-failure-rules.js";
export { copilotTranscriptUsage } from "./copilot-transcript-usage.js";
export { COPILOT_BOOTSTRAP_PACKAGE, COPILOT_CLI_VERSION } from "./copilot-version.js";
export { COPILOT_CREDENTIAL_FILES, copilotSessionProfile } from "./copilot-session-profile.js";
export { copilotConversationStore } from "./copilot-conversation-store.js";
export type { CopilotConversationStoreOptions } from "./copilot-conversation-store.js";
