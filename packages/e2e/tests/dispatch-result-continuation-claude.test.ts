import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeAgent, claudeConversationStore } from "@outpost/agent-claude";
import { createAgent, createSandbox, dispatch } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { startModelServer } from "@outpost/testkit/model-server";
import { scratchRepository } from "../src/index.js";
import { demoScript } from "../src/demo/demo-script.js";

// result.resume() / result.fork() and a warm sandbox (page 004) with the real Claude Code CLI against the
// scripted model server on 127.0.0.1: the continuations carry the agent, the provider and the storage.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);

describe("result.resume() and result.fork() with the real Claude Code CLI (local provider)", () => {
  it("resume() continues the conversation; fork() continues a copy under a new id and leaves the original intact", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      const agent = claudeAgent({
        baseUrl: server.url,
        apiKey: "sk-ant-test",
        executable: claudeBinary,
        maxRetries: 0,
        storage: claudeConversationStore(),
      });
      const first = await dispatch({
        agent,
        brief: "Create hello.txt and commit it.",
        repository: scratchRepository(),
        conversationHome: mkdtempSync(join(tmpdir(), "outpost-claude-home-")),
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
      });
      expect(first.commits).toHaveLength(1);
      const original = readFileSync(first.conversation!.file, "utf8");

      // The fork first: it must leave the original conversation as it was.
      const forked = await first.fork("TURN2: what did you do?");
      expect(forked.text).toContain("history_has_turn1=true");
      expect(forked.conversationId).toMatch(/^[0-9a-f-]{36}$/);
      expect(forked.conversationId).not.toBe(first.conversationId);
      expect(readFileSync(first.conversation!.file, "utf8")).toBe(original);

      const resumed = await first.resume("TURN2: what did you do?");
      expect(resumed.conversationId).toBe(first.conversationId);
      expect(resumed.text).toContain("history_has_turn1=true");
      expect(server.problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("a warm sandbox runs a dispatch and resumes it on the same lease", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      const agent = claudeAgent({
        baseUrl: server.url,
        apiKey: "sk-ant-test",
        executable: claudeBinary,
        maxRetries: 0,
        storage: claudeConversationStore(),
      });
      const sandbox = await createSandbox({
        agent,
        repository: scratchRepository(),
        conversationHome: mkdtempSync(join(tmpdir(), "outpost-claude-home-")),
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "named", name: "warm" },
      });
      try {
        const first = await sandbox.dispatch("Create hello.txt and commit it.");
        expect(first.commits).toHaveLength(1);
        const resumed = await sandbox.resume(first.conversationId!, "TURN2: what did you do?");
        expect(resumed.conversationId).toBe(first.conversationId);
        expect(resumed.text).toContain("history_has_turn1=true");
        const log = await sandbox.command({ executable: "git", arguments: ["log", "-1", "--format=%s"] });
        expect(log.stdout.trim()).toBe("Add hello.txt");
      } finally {
        await sandbox.close();
      }
      expect(server.problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("an agent from createAgent() (the installed claude plugin) answers and resumes", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      const agent = await createAgent({
        harness: "claude",
        endpoint: { baseUrl: server.url, apiKey: "sk-ant-test" },
        executable: claudeBinary,
      });
      const first = await dispatch({
        agent,
        brief: "Create hello.txt and commit it.",
        repository: scratchRepository(),
        conversationHome: mkdtempSync(join(tmpdir(), "outpost-claude-home-")),
        sandboxProvider: localProvider({ home: "private" }),
      });
      expect(first.commits).toHaveLength(1);
      expect(first.conversation?.format).toBe("claude");
      const resumed = await first.resume("TURN2: what did you do?");
      expect(resumed.text).toContain("history_has_turn1=true");
      expect(server.problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 180_000);
});
