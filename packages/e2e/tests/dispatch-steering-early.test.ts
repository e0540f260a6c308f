import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createReplayAgent, createSteering, dispatch, localJournalTransport, readJournal } from "@outpost/dispatch";
import { localProvider } from "@outpost/provider-local";
import { gitIn, scratchRepository, scriptAgent } from "../src/index.js";

// An agent that takes its conversation id up front (Claude Code, Copilot, Gemini) can be stopped for steering
// at once, before its CLI saved anything. Resuming that id would fail ("no conversation"): the engine starts the
// brief over with the instruction instead. The script agent saves its conversation only after SAVE_DELAY_MS.
const INSTRUCTION = "STEERING-EARLY: name the file early.txt";

describe("steering an agent stopped before it saved its conversation", () => {
  it("starts the brief over with the instruction in a new conversation, which commits and can be continued", async () => {
    const repository = scratchRepository();
    const directory = mkdtempSync(join(tmpdir(), "outpost-early-steer-"));
    const agent = scriptAgent({ directory, namesConversations: true, behaviour: { FILE: "early.txt", SAVE_DELAY_MS: "4000" } });
    // Taken before the run: the replay starts from the same baseline.
    const clone = join(directory, "clone");
    execFileSync("git", ["clone", "--quiet", repository, clone]);
    const steering = createSteering();
    const warnings: string[] = [];
    const running = dispatch({
      agent,
      brief: "Create a file.",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      steering,
      logging: { replayable: true },
      warn: (message) => warnings.push(message),
    });
    // Sent the moment dispatch() was called: queued (pending) until the first turn can take it.
    expect(steering.state).toBe("pending");
    const receipt = await steering.send(INSTRUCTION);
    const result = await running;
    expect(steering.state).toBe("ended");
    expect(receipt).toEqual({ delivery: "resumed", dispatchId: result.dispatchId, pass: 1 });
    expect(result.completed).toBe(true);
    expect(result.turns.map((turn) => [turn.interrupted, turn.steering])).toEqual([
      ["steering", undefined],
      [undefined, [INSTRUCTION]],
    ]);
    // A new conversation, whose first (and only) prompt is the brief with the instruction.
    const [stopped, restarted] = result.turns;
    expect(restarted!.conversationId).not.toBe(stopped!.conversationId);
    // The stopped run saved nothing at all (not even its pass counter): this is the first run that did.
    expect(restarted!.text).toMatch(/^pass 1 saw 0 earlier prompt\(s\)/);
    expect(warnings.some((message) => message.includes("stopped for steering before it saved its conversation"))).toBe(true);
    expect(gitIn(repository, "log", "-1", "--format=%s", "main")).toBe("script agent: early.txt");

    // A replay plays the restart as recorded: same turns and prompts (a prompt divergence would throw).
    const journal = await readJournal({ transport: localJournalTransport(repository), reference: result.journal! });
    const replay = createReplayAgent({ journal });
    const replayed = await dispatch({
      agent: replay,
      brief: "Create a file.",
      repository: clone,
      sandboxProvider: localProvider(),
      logging: false,
    });
    expect(replay.remainingTurns).toBe(0);
    expect(replayed.turns.map((turn) => [turn.interrupted, turn.steering])).toEqual([
      ["steering", undefined],
      [undefined, [INSTRUCTION]],
    ]);
    expect(replayed.text).toBe(result.text);
    expect(replayed.commits).toEqual(result.commits);

    // The restarted conversation holds the brief and the instruction, and continues.
    const continued = await dispatch({
      agent: scriptAgent({ directory, namesConversations: true }),
      brief: "And then?",
      repository,
      sandboxProvider: localProvider({ home: "private" }),
      continuation: { id: result.conversationId! },
    });
    expect(continued.text).toContain(`saw 1 earlier prompt(s): ${JSON.stringify([`Create a file.\n\n${INSTRUCTION}`])}`);
  }, 120_000);
});
