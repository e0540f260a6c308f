import { claudeAgent } from "@outpost/agent-claude";
import { describeAgentScenario } from "../support/agent-scenario.js";
import { dockerAgentProvider, dockerAgentsUnavailable } from "../support/docker-agent-provider.js";

describeAgentScenario({
  name: "claude in Docker",
  executable: "claude",
  writeTool: "Write",
  agent: (server) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0 }),
  provider: dockerAgentProvider,
  unavailable: dockerAgentsUnavailable(),
});
