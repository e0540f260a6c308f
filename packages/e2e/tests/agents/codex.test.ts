import { codexAgent } from "@outpost/agent-codex";
import { localProvider } from "@outpost/provider-local";
import { describeAgentScenario } from "../support/agent-scenario.js";
import { pathWithClis } from "../support/cli-bin.js";

describeAgentScenario({
  name: "codex",
  executable: "codex",
  writeTool: "shell",
  // A known model slug gives codex its real tool set and no "model metadata not found" warning.
  agent: (server) => codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0 }),
  provider: () => localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
});
