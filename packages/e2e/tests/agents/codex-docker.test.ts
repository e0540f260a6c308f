import { codexAgent } from "@outpost/agent-codex";
import { describeAgentScenario } from "../support/agent-scenario.js";
import { dockerAgentProvider, dockerAgentsUnavailable } from "../support/docker-agent-provider.js";

describeAgentScenario({
  name: "codex in Docker",
  executable: "codex",
  writeTool: "shell",
  // A known model slug gives codex its real tool set and no "model metadata not found" warning.
  agent: (server) => codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0 }),
  provider: dockerAgentProvider,
  unavailable: dockerAgentsUnavailable(),
});
