import { geminiAgent } from "@outpost/agent-gemini";
import { describeAgentScenario } from "../support/agent-scenario.js";
import { dockerAgentProvider, dockerAgentsUnavailable } from "../support/docker-agent-provider.js";

describeAgentScenario({
  name: "gemini in Docker",
  executable: "gemini",
  writeTool: "write_file",
  forkable: false,
  // A fixed model skips the routing call `auto` makes before every turn.
  agent: (server) => geminiAgent({ baseUrl: server.url, apiKey: "outpost-test-key", model: "gemini-2.5-flash", maxAttempts: 1 }),
  provider: dockerAgentProvider,
  unavailable: dockerAgentsUnavailable(),
});
