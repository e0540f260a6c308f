export { scriptAgent } from "./script-agent/script-agent.js";
export type { ScriptAgentConfig } from "./script-agent/script-agent.js";
export { scriptAgentStore, scriptAgentConversations, SCRIPT_AGENT_FORMAT } from "./script-agent/script-agent-store.js";
export { scratchRepository, gitIn } from "./scratch-repository.js";
export { dockerGate, DOCKER_TEST_IMAGE } from "./docker-gate.js";
