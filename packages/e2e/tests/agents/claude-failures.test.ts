import { claudeAgent } from "@outpost/agent-claude";
import { localProvider } from "@outpost/provider-local";
import { pathWithClis } from "../support/cli-bin.js";
import { describeFailureScenario } from "../support/failure-scenario.js";

describeFailureScenario({
  name: "claude",
  executable: "claude",
  agent: (server) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0 }),
  provider: () => localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
  statuses: { 429: "quota", 529: "unavailable", 503: "unavailable" },
});
