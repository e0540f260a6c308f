import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createAgent, dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";

// createAgent()'s model { name, reasoning, maxOutputTokens } (page 004's createAgent(), issue 41) reaches the
// real CLIs: each turn's request to the scripted model server carries them as the vendor's API names them.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);

async function turnBodies(server: ModelServer, agent: Awaited<ReturnType<typeof createAgent>>): Promise<Record<string, unknown>[]> {
  const result = await dispatch({
    agent,
    brief: "Say done.",
    repository: scratchRepository(),
    conversationHome: mkdtempSync(join(tmpdir(), "outpost-model-settings-")),
    sandboxProvider: localProvider({ home: "private" }),
  });
  expect(result.completed, result.text).toBe(true);
  expect(server.problems).toEqual([]);
  return server.requests.filter((request) => request.kind === "turn").map((request) => request.json as Record<string, unknown>);
}

describe("createAgent() model settings, with the real CLIs", () => {
  it("Claude Code: reasoning is the request's effort, maxOutputTokens its max_tokens", async () => {
    const server = await startModelServer({ script: [{ text: "Done. <outpost>done</outpost>" }] });
    try {
      const agent = await createAgent({
        harness: "claude",
        model: { name: "claude-settings", reasoning: "low", maxOutputTokens: 2000 },
        endpoint: { baseUrl: server.url, apiKey: "sk-ant-test" },
        executable: claudeBinary,
      });
      const bodies = await turnBodies(server, agent);
      expect(bodies.length).toBeGreaterThan(0);
      for (const body of bodies)
        expect(body).toMatchObject({ model: "claude-settings", max_tokens: 2000, output_config: { effort: "low" } });
    } finally {
      await server.close();
    }
  }, 120_000);

  it("Codex: reasoning is the request's reasoning effort; maxOutputTokens, which the pinned codex cannot set, is refused", async () => {
    const server = await startModelServer({ script: [{ text: "Done. <outpost>done</outpost>" }] });
    try {
      const agent = await createAgent({
        harness: "codex",
        model: { name: "gpt-5.5", reasoning: "low" },
        endpoint: { baseUrl: `${server.url}/v1`, apiKey: "test-key" },
      });
      const bodies = await turnBodies(server, agent);
      expect(bodies.length).toBeGreaterThan(0);
      for (const body of bodies) expect(body).toMatchObject({ model: "gpt-5.5", reasoning: { effort: "low" } });
      const refused = await createAgent({ harness: "codex", model: { name: "gpt-5.5", maxOutputTokens: 100 } }).catch(
        (error: unknown) => error,
      );
      expect((refused as { code?: string }).code).toBe("configuration");
      expect((refused as Error).message).toContain("cannot apply maxOutputTokens");
    } finally {
      await server.close();
    }
  }, 120_000);
});
