import { claudeAgent } from "@outpost/agent-claude";
import { codexAgent } from "@outpost/agent-codex";
import { copilotAgent } from "@outpost/agent-copilot";
import { geminiAgent } from "@outpost/agent-gemini";
import { kimiAgent } from "@outpost/agent-kimi";
import { opencodeAgent } from "@outpost/agent-opencode";
import type { AgentAdapter } from "@outpost/core";
import type { ModelServer } from "@outpost/testkit/model-server";
import { SHARED_CACHE } from "./providers.js";

/** Each installed agent plugin pointed at the scripted model server, as the e2e suites configure them. */
export const AGENTS: Record<string, (server: ModelServer) => AgentAdapter> = {
  claude: (server) => claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-consumer", maxRetries: 0 }),
  // A known model slug gives codex its real tool set.
  codex: (server) => codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "consumer-key", model: "gpt-5.5", maxRetries: 0 }),
  copilot: (server) =>
    copilotAgent({ endpoint: { baseUrl: `${server.url}/v1`, apiKey: "consumer-key" }, model: "fake-model", cacheDirectory: SHARED_CACHE }),
  // A fixed model skips the routing call `auto` makes before every turn.
  gemini: (server) => geminiAgent({ baseUrl: server.url, apiKey: "consumer-key", model: "gemini-2.5-flash", maxAttempts: 1 }),
  opencode: (server) => opencodeAgent({ endpoint: { baseUrl: `${server.url}/v1`, apiKey: "consumer-key" }, model: "fake-model" }),
  kimi: (server) => kimiAgent({ endpoint: { baseUrl: `${server.url}/v1`, apiKey: "consumer-key" }, model: "fake-model" }),
};
