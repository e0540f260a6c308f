import { claudeAgent } from "@outpost/agent-claude";
import { localProvider } from "@outpost/provider-local";
import { describeAgentScenario } from "../support/agent-scenario.js";
import { pathWithClis } from "../support/cli-bin.js";

describeAgentScenario({
  name: "claude",
  executable: "claude",
  writeTool: "Write",
  agent: (server) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0 }),
  provider: () => localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
});
