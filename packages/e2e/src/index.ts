// The script agent lives in the kit (@outpost/testkit/script-agent); re-exported for the e2e suites.
export { scriptAgent, scriptAgentStore, scriptAgentConversations, SCRIPT_AGENT_FORMAT } from "@outpost/testkit/script-agent";
export type { ScriptAgentConfig } from "@outpost/testkit/script-agent";
export { scratchRepository, gitIn } from "./scratch-repository.js";
export { dockerGate, DOCKER_TEST_IMAGE } from "./docker-gate.js";
