import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { codexAgent } from "@outpost/agent-codex";
import type { AgentEvent } from "@outpost/core";
import { createReplayAgent, dispatch, localJournalTransport, readJournal } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { startModelServer, writeFileStep, type ScriptStep } from "@outpost/testkit/model-server";
import { gitIn, scratchRepository } from "../src/index.js";
import { missingCli, pathWithClis } from "./support/cli-bin.js";

// Record a real Codex run once (scripted model server), then replay it with no model server at all.
const API_KEY = "sk-codex-replay-secret-0123456789";
const BRIEF = "Create hello.txt and two.txt, committing each.";

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

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, encoding: "utf8" })
    .map((name) => join(directory, name))
    .filter((path) => statSync(path).isFile());
}

const unavailable = missingCli("codex");
(unavailable ? describe.skip : describe)(`replay of a recorded Codex run${unavailable ? ` (unavailable: ${unavailable})` : ""}`, () => {
  it("records a real Codex run that commits twice, then replays it in a fresh clone: same events, usage and commit ids", async () => {
    const repository = scratchRepository();
    const source = mkdtempSync(join(tmpdir(), "outpost-replay-codex-source-"));
    execFileSync("git", ["clone", "--quiet", "--bare", repository, source]);
    const server = await startModelServer({
      script: [
        writeFileStep("hello.txt", "Hello from a recorded Codex run.\n"),
        shell("git add hello.txt && git commit -q -m 'Add hello.txt'"),
        shell("printf 'two\\n' > two.txt && git add two.txt && git commit -q -m 'Add two.txt'"),
        { text: "Both files are committed. <outpost>done</outpost>" },
      ],
    });
    const recorded: AgentEvent[] = [];
    let result;
    try {
      result = await dispatch({
        agent: codexAgent({ baseUrl: `${server.url}/v1`, apiKey: API_KEY, model: "gpt-5.5", maxRetries: 0 }),
        brief: BRIEF,
        repository,
        sandboxProvider: localProvider({ home: "private", variables: { PATH: pathWithClis() } }),
        logging: { replayable: true },
        observe: (observation) => {
          // The agent's own events; fallbacks and steering are the engine's.
          if (observation.event.type !== "fallback" && observation.event.type !== "steer" && observation.event.type !== "watchdog")
            recorded.push(observation.event);
        },
      });
      expect(server.problems).toEqual([]);
    } finally {
      await server.close();
    }
    expect(result.commits).toHaveLength(2);
    for (const file of filesUnder(join(repository, ".outpost", "storage"))) expect(readFileSync(file, "utf8")).not.toContain(API_KEY);
    const journal = await readJournal({ transport: localJournalTransport(repository), reference: result.journal! });
    expect(journal.agent).toBe("codex");
    expect(journal.records.filter((record) => record.kind === "commit")).toHaveLength(2);

    const clone = mkdtempSync(join(tmpdir(), "outpost-replay-codex-clone-"));
    execFileSync("git", ["clone", "--quiet", source, clone]);
    const replayedEvents: AgentEvent[] = [];
    const replayed = await dispatch({
      agent: createReplayAgent({ journal }),
      brief: BRIEF,
      repository: clone,
      sandboxProvider: localProvider({ home: "private" }),
      logging: false,
      observe: (observation) => {
        // The agent's own events; fallbacks and steering are the engine's.
        if (observation.event.type !== "fallback" && observation.event.type !== "steer" && observation.event.type !== "watchdog")
          replayedEvents.push(observation.event);
      },
    });
    expect(replayedEvents).toEqual(recorded.filter((event) => event.type !== "raw"));
    expect(replayed.usage).toEqual(result.usage);
    expect(replayed.text).toBe(result.text);
    expect(replayed.commits).toEqual(result.commits);
    expect(gitIn(clone, "rev-parse", "HEAD")).toBe(result.commits[1]);
    expect(readFileSync(join(clone, "two.txt"), "utf8")).toBe("two\n");
    expect(replayed.divergences).toEqual([]);
  }, 240_000);
});
