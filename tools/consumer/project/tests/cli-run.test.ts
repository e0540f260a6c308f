import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commitResponder } from "./support/commit-responder.js";
import { claudeExecutable, git, jsonLines, outpost, scratchRepository } from "./support/installed.js";

// The installed `outpost` bin with the real Claude Code CLI: run, run --continue, --record and a replay.
describe("outpost run (the installed bin, real Claude Code)", () => {
  let server: ModelServer;
  const repository = scratchRepository("outpost-consumer-cli-");
  // A bare copy taken before any run: where the replay starts again, as on another machine.
  const baseline = mkdtempSync(join(tmpdir(), "outpost-consumer-baseline-"));
  execFileSync("git", ["clone", "--quiet", "--bare", repository, baseline]);
  const home = mkdtempSync(join(tmpdir(), "outpost-consumer-cli-conversations-"));
  let conversationId = "";
  let journal = "";
  beforeAll(async () => {
    server = await startModelServer({ responder: commitResponder() });
  });
  afterAll(async () => {
    await server?.close();
  });
  const common = () => [
    ...["--agent", "claude", "--provider", "local", "--base-url", server.url, "--executable", claudeExecutable()],
    ...["--repository", repository, "--conversation-home", home],
  ];
  const env = { ANTHROPIC_API_KEY: "sk-ant-consumer" };

  it("run --record commits through integrate, captures the conversation and prints the continue hint", async () => {
    const run = await outpost(["run", ...common(), "--branch", "integrate", "--record", "create and commit FILE=cli.txt"], {
      cwd: repository,
      env,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(git(repository, "log", "-1", "--format=%s", "main")).toBe("Add cli.txt");
    // The journal first: the replay needs no captured conversation.
    journal = /journal: (journals\/\S+\/index\.json) \(replay with: outpost replay \1\)/.exec(run.stdout)?.[1] ?? "";
    expect(journal, run.stdout).not.toBe("");
    const hint = /conversation: (\S+) \(continue with: outpost run --agent claude --continue \1/.exec(run.stdout);
    expect(hint, `${run.stdout}\n${run.stderr}`).not.toBeNull();
    conversationId = hint![1]!;
  });

  it("run --continue continues the captured conversation", async () => {
    expect(conversationId, "the first run was captured").not.toBe("");
    const run = await outpost(["run", ...common(), "--continue", conversationId, "--json", "TURN2: what did you do?"], {
      cwd: repository,
      env,
    });
    expect(run.status, run.stderr).toBe(0);
    const result = jsonLines(run.stdout).at(-1)!;
    expect(result).toMatchObject({ type: "result", conversationId });
    expect(String(result["text"])).toContain("history_has_turn1=true");
  });

  it("replay rebuilds the recorded commit in a fresh clone, without the model", async () => {
    expect(journal, "the first run was recorded").not.toBe("");
    const clone = mkdtempSync(join(tmpdir(), "outpost-consumer-replay-"));
    execFileSync("git", ["clone", "--quiet", baseline, clone]);
    const turns = server.turns().length;
    const replayed = await outpost(["replay", journal, "--from", repository, "--provider", "local"], { cwd: clone });
    expect(replayed.status, replayed.stderr).toBe(0);
    expect(git(clone, "log", "-1", "--format=%s", "main")).toBe("Add cli.txt");
    expect(server.turns().length).toBe(turns);
  });
});
