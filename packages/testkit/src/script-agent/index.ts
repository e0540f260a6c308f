export { scriptAgent } from "./script-agent.js";
export type { ScriptAgentConfig } from "./script-agent.js";
export { scriptAgentStore, scriptAgentConversations, SCRIPT_AGENT_FORMAT } from "./script-agent-store.js";
export { SCRIPT_AGENT_SOURCE } from "./script-agent-source.js";
