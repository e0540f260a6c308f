import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { dispatch, type AgentObservation } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { startModelServer, type ScriptStep } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";
import { demoScript } from "../src/demo/demo-script.js";

// The real Claude Code CLI against the scripted model server, which makes it run the same command again and
// again: the watchdog stops it (code stuck) at the third identical tool call, long before its own timers.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);
const sameCall: ScriptStep = { toolCall: { name: "Bash", arguments: { command: "cat README.md", description: "Read the README" } } };

describe("guardrails with the real Claude Code CLI (local provider)", () => {
  it("a looping agent is stopped with code stuck after the same tool call three times", async () => {
    const server = await startModelServer({ script: [...Array.from({ length: 10 }, () => sameCall), { text: "never reached" }] });
    try {
      const repository = scratchRepository();
      const seen: AgentObservation[] = [];
      const started = Date.now();
      const error = await dispatch({
        agent: claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-test", executable: claudeBinary, maxRetries: 0 }),
        brief: "Read the README.",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        watchdog: { repeatedToolCalls: 3 },
        observe: (observation) => seen.push(observation),
      }).then(
        () => undefined,
        (caught: unknown) => caught as { code: string; details: { watchdog: unknown } },
      );
      expect(error).toMatchObject({ code: "stuck", details: { watchdog: { rule: "repeatedToolCall", count: 3, action: "stop" } } });
      expect(seen.filter((observation) => observation.type === "tool-call")).toHaveLength(3);
      expect(seen.find((observation) => observation.type === "watchdog")).toMatchObject({ rule: "repeatedToolCall" });
      expect(Date.now() - started).toBeLessThan(60_000);
    } finally {
      await server.close();
    }
  }, 120_000);

  it("pricing: the turn's real usage is priced, and the guard lets a change within its bounds integrate", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      const repository = scratchRepository();
      const result = await dispatch({
        agent: claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-test", executable: claudeBinary, maxRetries: 0 }),
        brief: "Create hello.txt and commit it.",
        repository,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
        pricing: { models: { "*": { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } } },
        guard: { protectedPaths: [".github", "**/*.lock"], maxChangedFiles: 1, maxChangedLines: 5 },
      });
      const usage = result.usage;
      const expected =
        (usage.inputTokens ?? 0) * 3 +
        (usage.outputTokens ?? 0) * 15 +
        (usage.cacheReadTokens ?? 0) * 0.3 +
        (usage.cacheWriteTokens ?? 0) * 3.75;
      expect(usage.outputTokens).toBeGreaterThan(0);
      expect(result.costUsd).toBeCloseTo(expected / 1_000_000, 6);
      expect(result.turns[0]?.costUsd).toBe(result.costUsd);
      expect(result.commits).toHaveLength(1);
    } finally {
      await server.close();
    }
  }, 120_000);
});
