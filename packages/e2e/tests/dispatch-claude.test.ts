import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeAgent, claudeConversationStore } from "@outpost/agent-claude";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { localProvider } from "@outpost/provider-local";
import { startModelServer } from "@outpost/testkit/model-server";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { demoScript } from "../src/demo/demo-script.js";

// The real Claude Code CLI against the scripted model server on 127.0.0.1.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);

describe("dispatch with the real Claude Code CLI (local provider)", () => {
  it("commits through integrate, then continues the same conversation in a fresh sandbox", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      const repository = scratchRepository();
      const conversationHome = mkdtempSync(join(tmpdir(), "outpost-claude-home-"));
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
        repository,
        conversationHome,
        sandboxProvider: localProvider({ home: "private" }),
        branch: { mode: "integrate" },
      });
      expect(first.completed).toBe(true);
      expect(first.commits).toHaveLength(1);
      expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("Add hello.txt");
      expect(readFileSync(join(repository, "hello.txt"), "utf8")).toContain("Hello");
      expect(first.conversation?.format).toBe("claude");
      expect(first.usage.outputTokens).toBeGreaterThan(0);

      const second = await dispatch({
        agent,
        brief: "TURN2: what did you do?",
        repository,
        conversationHome,
        sandboxProvider: localProvider({ home: "private" }),
        continuation: { id: first.conversationId! },
      });
      expect(second.conversationId).toBe(first.conversationId);
      expect(second.text).toContain("history_has_turn1=true");
      expect(server.problems).toEqual([]);
    } finally {
      await server.close();
    }
  }, 120_000);

  it("fork: continues a copy under a new id and leaves the original conversation intact", async () => {
    const server = await startModelServer({ script: demoScript() });
    try {
      const repository = scratchRepository();
      const conversationHome = mkdtempSync(join(tmpdir(), "outpost-claude-home-"));
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
        repository,
        conversationHome,
        sandboxProvider: localProvider({ home: "private" }),
      });
      const original = readFileSync(first.conversation!.file, "utf8");
      const forked = await dispatch({
        agent,
        brief: "TURN2: what did you do?",
        repository,
        conversationHome,
        sandboxProvider: localProvider({ home: "private" }),
        continuation: { id: first.conversationId!, fork: true },
      });
      expect(forked.text).toContain("history_has_turn1=true");
      expect(forked.conversationId).toMatch(/^[0-9a-f-]{36}$/);
      expect(forked.conversationId).not.toBe(first.conversationId);
      expect(readFileSync(first.conversation!.file, "utf8")).toBe(original);
    } finally {
      await server.close();
    }
  }, 120_000);
});

const gate = dockerGate();
(gate.unavailable ? describe.skip : describe)(
  `dispatch with the real Claude Code CLI on Docker${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("a conversation captured on the local provider continues in a fresh container, and back", async () => {
      const server = await startModelServer({ script: demoScript() });
      try {
        const repository = scratchRepository();
        const conversationHome = mkdtempSync(join(tmpdir(), "outpost-claude-home-"));
        const agent = (executable: string) =>
          claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-test", executable, maxRetries: 0, storage: claudeConversationStore() });
        const first = await dispatch({
          agent: agent(claudeBinary),
          brief: "Create hello.txt and commit it.",
          repository,
          conversationHome,
          sandboxProvider: localProvider({ home: "private" }),
          branch: { mode: "integrate" },
        });
        expect(first.commits).toHaveLength(1);
        // The CLI package is mounted read-only at the same path; host networking reaches the model server on 127.0.0.1.
        const docker = dockerProvider({
          image: DOCKER_TEST_IMAGE,
          network: "host",
          user: { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 },
          volumes: [{ source: claudePackage, target: claudePackage, readOnly: true }],
        });
        const second = await dispatch({
          agent: agent(claudeBinary),
          brief: "TURN2: what did you do?",
          repository,
          conversationHome,
          sandboxProvider: docker,
          continuation: { id: first.conversationId! },
        });
        expect(second.conversationId).toBe(first.conversationId);
        expect(second.text).toContain("history_has_turn1=true");
        // And back to a local sandbox: the container's turn was captured and is part of the history.
        const third = await dispatch({
          agent: agent(claudeBinary),
          brief: "TURN2: and now?",
          repository,
          conversationHome,
          sandboxProvider: localProvider({ home: "private" }),
          continuation: { id: first.conversationId! },
          until: ["MARKER_TURN2_DONE"],
        });
        expect(third.completed).toBe(true);
        expect(third.text).toContain("history_has_turn1=true");
        expect(readFileSync(third.conversation!.file, "utf8")).toContain("TURN2: what did you do?");
        // Nothing of the container run leaks into the host checkout.
        expect(execFileSync("git", ["status", "--porcelain"], { cwd: repository, encoding: "utf8" })).toBe("");
      } finally {
        await server.close();
      }
    }, 180_000);
  },
);
