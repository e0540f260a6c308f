import { randomUUID } from "node:crypto";
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

  it("a custom agent from createAgent() (its own request() and a fork hook over the claude harness) runs, resumes and forks", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      const asked: unknown[] = [];
      const copies: [string, string][] = [];
      const agent = await createAgent({
        harness: "claude",
        endpoint: { baseUrl: server.url, apiKey: "sk-ant-test" },
        executable: claudeBinary,
        // The request is the caller's: here the harness's own, with a line added to every prompt.
        request: (turn, harness) => {
          asked.push(turn.resume);
          return harness.command({ ...turn, prompt: `${turn.prompt}\n[sent by a custom request]` });
        },
        // Claude Code keeps a conversation as ~/.claude/projects/<slug>/<id>.jsonl: the copy is that file under a new id.
        fork: async (id, { sandbox }) => {
          const copy = randomUUID();
          const copied = await sandbox.invoke({
            executable: "sh",
            arguments: [
              "-c",
              'set -e; src=$(find "$1/.claude/projects" -name "$2.jsonl" | head -n 1); [ -n "$src" ]; sed "s/$2/$3/g" "$src" > "${src%/*}/$3.jsonl"',
              "fork",
              sandbox.home,
              id,
              copy,
            ],
          });
          if (copied.status !== 0) throw new Error(`copy failed: ${copied.stderr}`);
          copies.push([id, copy]);
          return copy;
        },
      });
      expect(agent.kind).toBe("custom");
      const first = await dispatch({
        agent,
        brief: "Create hello.txt and commit it.",
        repository: scratchRepository(),
        conversationHome: mkdtempSync(join(tmpdir(), "outpost-claude-home-")),
        sandboxProvider: localProvider({ home: "private" }),
      });
      expect(first.commits).toHaveLength(1);
      expect(first.conversation?.format).toBe("claude");
      expect(first.usage.outputTokens).toBeGreaterThan(0);
      const original = readFileSync(first.conversation!.file, "utf8");

      const forked = await first.fork("TURN2: what did you do?");
      expect(copies).toEqual([[first.conversationId, forked.conversationId]]);
      expect(forked.text).toContain("history_has_turn1=true");
      expect(readFileSync(first.conversation!.file, "utf8")).toBe(original);
      const resumed = await first.resume("TURN2: what did you do?");
      expect(resumed.conversationId).toBe(first.conversationId);
      expect(resumed.text).toContain("history_has_turn1=true");
      // request() built every turn, and never saw fork: true (the hook made the copy).
      expect(asked).toEqual([undefined, { id: forked.conversationId }, { id: first.conversationId }]);
      expect(server.requests.some((request) => request.body.includes("[sent by a custom request]"))).toBe(true);
      expect(server.problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 240_000);

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
