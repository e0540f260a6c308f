import { geminiAgent } from "@outpost/agent-gemini";
import { localProvider } from "@outpost/provider-local";
import { describeAgentScenario } from "../support/agent-scenario.js";
import { pathWithClis } from "../support/cli-bin.js";

describeAgentScenario({
  name: "gemini",
  executable: "gemini",
  writeTool: "write_file",
  forkable: false,
  // A fixed model skips the routing call `auto` makes before every turn.
  agent: (server) => geminiAgent({ baseUrl: server.url, apiKey: "outpost-test-key", model: "gemini-2.5-flash", maxAttempts: 1 }),
  provider: () => localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
});
