import { geminiAgent } from "@outpost/agent-gemini";
import { localProvider } from "@outpost/provider-local";
import { pathWithClis } from "../support/cli-bin.js";
import { describeFailureScenario } from "../support/failure-scenario.js";

describeFailureScenario({
  name: "gemini",
  executable: "gemini",
  agent: (server) => geminiAgent({ baseUrl: server.url, apiKey: "outpost-test-key", model: "gemini-2.5-flash", maxAttempts: 1 }),
  provider: () => localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
  statuses: { 429: "quota", 503: "unavailable" },
});
