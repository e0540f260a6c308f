import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeAgent } from "@outpost/agent-claude";
import { codexAgent } from "@outpost/agent-codex";
import { ReplayDivergence } from "@outpost/core";
import { createFallbackAgent, createReplayAgent, dispatch, localJournalTransport, readJournal, type Journal } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import type { ScriptStep } from "@outpost/testkit/model-server";
import { gitIn, scratchRepository } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";
import { repositoryState } from "./support/repository-state.js";
import { withModelServer } from "./support/with-model-server.js";

// A fallback chain recorded with the real CLIs: Claude Code is refused (429), Codex takes over and commits twice.
// The replay plays the switch as recorded (event, report, usage) and rebuilds Codex's commits with their ids.
const BRIEF = "Create one.txt and two.txt, committing each.";
const provider = () => localProvider({ home: "private", variables: { PATH: pathWithClis() } });

/** Codex's shell tool, whichever name this release offers. */
function shell(command: string): ScriptStep {
  return {
    toolCall: {
      names: ["exec_command", "shell_command", "shell"],
      arguments: (name) =>
        name === "exec_command" ? { cmd: command } : name === "shell" ? { command: ["bash", "-lc", command] } : { command },
    },
  };
}

const rejection = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const unavailable = missingCli("claude") ?? missingCli("codex");
(unavailable ? describe.skip : describe)(
  `trusted replay of a fallback to Codex${unavailable ? ` (unavailable: ${unavailable})` : ""}`,
  () => {
    it("replays the recorded fallback and Codex's commits; a divergence under fail and a forged commit leave the clone untouched", async () => {
      const repository = scratchRepository();
      const source = mkdtempSync(join(tmpdir(), "outpost-trust-codex-source-"));
      execFileSync("git", ["clone", "--quiet", "--bare", repository, source]);
      const clone = (): string => {
        const directory = mkdtempSync(join(tmpdir(), "outpost-trust-codex-clone-"));
        execFileSync("git", ["clone", "--quiet", source, directory]);
        return directory;
      };
      let codexCalls = 0;
      const recorded = await withModelServer(
        (request): ScriptStep => {
          if (request.api === "anthropic-messages") return { error: { status: 429, headers: { "retry-after": "0" } } };
          codexCalls += 1;
          if (codexCalls === 1) return shell("printf 'one\\n' > one.txt && git add one.txt && git commit -q -m 'Add one.txt'");
          if (codexCalls === 2) return shell("printf 'two\\n' > two.txt && git add two.txt && git commit -q -m 'Add two.txt'");
          return { text: "Codex did it. <outpost>done</outpost>", usage: { inputTokens: 30, outputTokens: 5 } };
        },
        (server) =>
          dispatch({
            agent: createFallbackAgent(
              [
                claudeAgent({ baseUrl: server.url, apiKey: "sk-ant-outpost-test", maxRetries: 0 }),
                codexAgent({ baseUrl: `${server.url}/v1`, apiKey: "outpost-test-key", model: "gpt-5.5", maxRetries: 0 }),
              ],
              { on: ["quota"] },
            ),
            brief: BRIEF,
            repository,
            sandboxProvider: provider(),
            logging: { replayable: true },
          }),
      );
      expect(recorded.fallback).toMatchObject({ agent: "codex", skipped: [{ agent: "claude", classification: "quota" }] });
      expect(recorded.commits).toHaveLength(2);
      const journal = await readJournal({ transport: localJournalTransport(repository), reference: recorded.journal! });
      expect(journal.records.filter((record) => record.kind === "fallback")).toMatchObject([{ from: "claude", to: "codex" }]);

      const fallbacks: string[] = [];
      const target = clone();
      const replayed = await dispatch({
        agent: createReplayAgent({ journal }),
        repository: target,
        sandboxProvider: localProvider(),
        logging: false,
        observe: (observation) => {
          if (observation.event.type === "fallback") fallbacks.push(`${observation.event.from}->${observation.event.to}`);
        },
      });
      expect(fallbacks).toEqual(["claude->codex"]);
      expect(replayed.fallback).toEqual(recorded.fallback);
      expect(replayed.turns.map((turn) => turn.agent)).toEqual(["codex"]);
      expect(replayed.usage).toEqual(recorded.usage);
      expect(replayed.commits).toEqual(recorded.commits);
      expect(gitIn(target, "rev-parse", "HEAD")).toBe(recorded.commits[1]);
      expect(replayed.divergences).toEqual([]);

      // An untracked file where Codex added one: verified commits that cannot land; nothing moves.
      const blocked = clone();
      writeFileSync(join(blocked, "two.txt"), "mine\n");
      const before = repositoryState(blocked);
      const error = await rejection(
        dispatch({ agent: createReplayAgent({ journal }), repository: blocked, sandboxProvider: localProvider() }),
      );
      expect(error).toBeInstanceOf(ReplayDivergence);
      expect(error).toMatchObject({ kind: "tree" });
      expect(repositoryState(blocked)).toEqual(before);

      // A commit message changed in the journal (its digests would be recomputed too): the rebuilt id gives it away.
      const forged: Journal = {
        ...journal,
        records: journal.records.map((record) =>
          record.kind === "commit"
            ? { ...record, commit: { ...record.commit, message: record.commit.message.replace("two", "2") } }
            : record,
        ),
      };
      const untouched = clone();
      const state = repositoryState(untouched);
      const caught = await rejection(
        dispatch({ agent: createReplayAgent({ journal: forged }), repository: untouched, sandboxProvider: localProvider() }),
      );
      expect(caught).toMatchObject({ kind: "commit", recorded: recorded.commits[1] });
      expect(repositoryState(untouched)).toEqual(state);
    }, 240_000);
  },
);
