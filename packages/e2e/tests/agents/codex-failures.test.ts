import { codexAgent } from "@outpost/agent-codex";
import { localProvider } from "@outpost/provider-local";
import { pathWithClis } from "../support/cli-bin.js";
import { describeFailureScenario } from "../support/failure-scenario.js";

describeFailureScenario({
  name: "codex",
  executable: "codex",
  agent: (server) => codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0 }),
  provider: () => localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
  statuses: { 429: "quota", 500: "unavailable", 503: "unavailable" },
});
