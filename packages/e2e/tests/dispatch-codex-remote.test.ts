import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexAgent, codexConversationStore } from "@outpost/agent-codex";
import { dispatch } from "@outpost/dispatch";
import { dockerProvider } from "@outpost/provider-docker";
import { localProvider } from "@outpost/provider-local";
import { startModelServer, writeFileStep, type ScriptStep } from "@outpost/testkit/model-server";
import { DOCKER_TEST_IMAGE, dockerGate, gitIn, scratchRepository } from "../src/index.js";
import { CLI_BIN, missingCli, pathWithClis } from "./support/cli-bin.js";

const TURN1_MARKER = "MARKER_TURN1_DONE";
const commit = "git add hello.txt && git commit -q -m 'Add hello.txt'";

/** Codex's tools: write hello.txt, commit it through its shell tool, report; later, answer from the history. */
function codexScript(): ScriptStep[] {
  return [
    writeFileStep("hello.txt", "Hello from Codex in an Outpost sandbox.\n"),
    {
      toolCall: {
        names: ["exec_command", "shell_command", "shell"],
        arguments: (name) =>
          name === "exec_command" ? { cmd: commit } : name === "shell" ? { command: ["bash", "-lc", commit] } : { command: commit },
      },
    },
    { text: `I created hello.txt and committed it. ${TURN1_MARKER} <outpost>done</outpost>` },
    (request) => ({
      text: request.transcript.includes(TURN1_MARKER)
        ? "Earlier I created hello.txt and committed it (history_has_turn1=true). <outpost>done</outpost>"
        : "I have no memory of a previous turn (history_has_turn1=false).",
    }),
  ];
}

const gate = dockerGate();
const unavailable = gate.unavailable?.reason ?? missingCli("codex");
(unavailable ? describe.skip : describe)(
  `dispatch with the real Codex CLI on Docker isolated${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
  () => {
    it("a turn in a remote sandbox commits and integrates; the conversation continues in a fresh remote sandbox, then locally", async () => {
      const server = await startModelServer({ script: codexScript() });
      try {
        const repository = scratchRepository();
        const conversationHome = mkdtempSync(join(tmpdir(), "outpost-codex-home-"));
        const agent = codexAgent({
          baseUrl: `${server.url}/v1`,
          apiKey: "outpost-test-key",
          model: "gpt-5.5",
          maxRetries: 0,
          storage: codexConversationStore(),
        });
        // The CLIs' node_modules mounted read-only at the same path; the repository itself travels as bundles.
        const modules = dirname(CLI_BIN);
        const remote = () =>
          dockerProvider({
            image: DOCKER_TEST_IMAGE,
            mode: "isolated",
            network: "host",
            user: { uid: 0, gid: 0 },
            volumes: [{ source: modules, target: modules, readOnly: true }],
            variables: { PATH: `${CLI_BIN}:/usr/local/bin:/usr/bin:/bin` },
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
        expect(readFileSync(join(repository, "hello.txt"), "utf8")).toContain("Hello from Codex");

        const second = await dispatch({
          agent,
          brief: "TURN2: what did you do?",
          repository,
          conversationHome,
          sandboxProvider: remote(),
          continuation: { id: first.conversationId! },
        });
        expect(second.text).toContain("history_has_turn1=true");

        const third = await dispatch({
          agent,
          brief: "TURN2: and now?",
          repository,
          conversationHome,
          sandboxProvider: localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
          continuation: { id: first.conversationId! },
        });
        expect(third.text).toContain("history_has_turn1=true");
        expect(execFileSync("git", ["status", "--porcelain"], { cwd: repository, encoding: "utf8" })).toBe("");
        expect(server.problems).toEqual([]);
      } finally {
        await server.close();
      }
    }, 240_000);
  },
);
