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

// The real Claude Code CLI against the scripted model server on 127.0.0.1, in remote (isolated) sandboxes.
const require = createRequire(import.meta.url);
const claudePackage = dirname(require.resolve("@anthropic-ai/claude-code/package.json"));
const claudeBinary = join(claudePackage, (require("@anthropic-ai/claude-code/package.json") as { bin: { claude: string } }).bin.claude);

const gate = dockerGate();
(gate.unavailable ? describe.skip : describe)(
  `dispatch with the real Claude Code CLI on Docker isolated${gate.unavailable ? ` (unavailable: ${gate.unavailable.reason})` : ""}`,
  () => {
    it("a turn in a remote sandbox commits and integrates; the conversation continues in a fresh remote sandbox, then locally", async () => {
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
        // Only the CLI package is mounted (read-only, same path); host networking reaches the model server on 127.0.0.1.
        // The repository is not: it travels as a bundle, and the commit comes back as one.
        const remote = () =>
          dockerProvider({
            image: DOCKER_TEST_IMAGE,
            mode: "isolated",
            network: "host",
            user: { uid: 0, gid: 0 },
            volumes: [{ source: claudePackage, target: claudePackage, readOnly: true }],
          });
        const first = await dispatch({
          agent,
          brief: "Create hello.txt and commit it.",
          repository,
          conversationHome,
          sandboxProvider: remote(),
        });
        expect(first.completed).toBe(true);
        expect(first.commits).toHaveLength(1);
        expect(first.branch).toBe("main");
        expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("Add hello.txt");
        expect(readFileSync(join(repository, "hello.txt"), "utf8")).toContain("Hello");
        expect(first.conversation?.format).toBe("claude");

        const second = await dispatch({
          agent,
          brief: "TURN2: what did you do?",
          repository,
          conversationHome,
          sandboxProvider: remote(),
          continuation: { id: first.conversationId! },
        });
        expect(second.conversationId).toBe(first.conversationId);
        expect(second.text).toContain("history_has_turn1=true");

        const third = await dispatch({
          agent,
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
        expect(execFileSync("git", ["status", "--porcelain"], { cwd: repository, encoding: "utf8" })).toBe("");
        expect(server.problems).toEqual([]);
      } finally {
        await server.close();
      }
    }, 240_000);
  },
);
