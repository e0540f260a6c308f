import { setTimeout as sleep } from "node:timers/promises";
import {
  throwIfAborted,
  type AgentEvent,
  type RecordedCommit,
  type ReplayAgent,
  type ReplayDivergence,
  type ReplayDivergenceInit,
  type ReplayEvent,
  type ReplayTurn,
} from "@outpost/core";
import type { TurnOutcome } from "../turn/run-turn.js";
import { findMarker } from "../turn/markers.js";
import { diverge } from "./replay-divergence.js";
import type { ReplayBuild } from "./replay-build.js";

export interface ReplayTurnInput {
  readonly agent: ReplayAgent;
  readonly build: ReplayBuild;
  readonly pass: number;
  readonly prompt: string;
  readonly markers: readonly string[];
  readonly signal?: AbortSignal;
  readonly onEvent: (event: AgentEvent) => void;
  /** A recorded steering instruction injected into the turn, at its point in the event stream. */
  readonly onInjection: (text: string) => void;
  /** Receives each divergence (the one the policy throws for included). */
  readonly onDivergence: (divergence: ReplayDivergence) => void;
  readonly warn: (message: string) => void;
}

/** A recorded turn that failed and made the fallback chain move on: thrown after its events were played. */
export class RecordedFallback extends Error {
  constructor(readonly turn: ReplayTurn) {
    super(`The recorded turn of ${turn.agent ?? "the agent"} failed over to ${turn.fallback?.to ?? "the next candidate"}.`);
  }
}

// Recorded gaps are replayed a hundred times faster, and never longer than this.
const COMPRESSION = 100;
const LONGEST_GAP_MS = 50;

/**
 * Plays one recorded turn in place of an agent process: checks the brief against the recording, re-emits
 * the recorded events (and injected instructions) with their timing compressed, and rebuilds the turn's
 * commits into the replay's scratch ref, each checked (tree and id) before it is kept.
 */
export async function replayTurn(input: ReplayTurnInput): Promise<TurnOutcome> {
  const { agent, pass } = input;
  const started = Date.now();
  const report = (init: ReplayDivergenceInit): void => {
    diverge(agent.divergence, init, input.onDivergence, input.warn);
  };
  if (agent.remainingTurns === 0)
    report({
      kind: "exhausted",
      pass,
      message: `The dispatch asked for turn ${pass}, but the journal holds only ${agent.turns.length} turn(s). Replay with the passes and markers the run was recorded with.`,
    });
  const turn = agent.nextTurn()!;
  if (turn.prompt !== input.prompt)
    report({
      kind: "prompt",
      pass,
      recorded: turn.prompt,
      actual: input.prompt,
      message:
        `The brief of turn ${pass} differs from the recorded one (${describeDifference(turn.prompt, input.prompt)}). ` +
        "Replay with the brief the run was recorded with, or leave the brief out: the replay takes it from the journal.",
    });
  if (!turn.complete)
    report({
      kind: "unrecorded",
      pass,
      message: `Turn ${pass} was not journaled to its end (the recording stopped inside it); only its first ${turn.events.length} event(s) can be replayed.`,
    });
  // The commits are rebuilt while the events play (git works in its own processes meanwhile); their
  // divergences are reported after the events, in order, as the recording saw them.
  const rebuilding = rebuildCommits(input, turn.commits);
  try {
    await playEvents(input, turn);
  } finally {
    // Settles before the turn ends either way: no git runs on after an abort, no rejection is left unhandled.
    await rebuilding.catch(() => undefined);
  }
  for (const divergence of await rebuilding) report(divergence);
  if (turn.fallback) throw new RecordedFallback(turn);
  const marker = turn.marker && input.markers.includes(turn.marker) ? turn.marker : findMarker(turn.text, input.markers);
  return {
    text: turn.text,
    usage: turn.usage,
    ...(turn.conversationId ? { conversationId: turn.conversationId } : {}),
    ...(marker ? { marker } : {}),
    settled: turn.settled,
    ...(turn.interrupted ? { interrupted: turn.interrupted } : {}),
    status: 0,
    durationMs: Date.now() - started,
  };
}

/** Re-emits the recorded events, each gap between them compressed, and each injection after the events it followed. */
async function playEvents(input: ReplayTurnInput, turn: ReplayTurn): Promise<void> {
  const injections = turn.injections ?? [];
  let injected = 0;
  const inject = (seen: number): void => {
    while (injected < injections.length && injections[injected]!.afterEvents <= seen) input.onInjection(injections[injected++]!.text);
  };
  let previous = 0;
  let owed = 0;
  inject(0);
  for (const [position, { atMs, event }] of turn.events.entries() as IterableIterator<[number, ReplayEvent]>) {
    throwIfAborted(input.signal, "The replay");
    owed += Math.min(Math.max(0, atMs - previous) / COMPRESSION, LONGEST_GAP_MS);
    previous = atMs;
    if (owed >= 4) {
      await sleep(owed);
      owed = 0;
    }
    input.onEvent(event);
    inject(position + 1);
  }
  inject(Number.POSITIVE_INFINITY);
}

/**
 * Rebuilds the turn's commits (in one sandbox process) and checks each in order: its tree, then, where it stands
 * on its recorded parent, its id. Under `fail` nothing after the first divergence is kept; under `warn` a commit
 * whose patch does not apply is left out and the others are kept as rebuilt.
 */
async function rebuildCommits(input: ReplayTurnInput, commits: readonly RecordedCommit[]): Promise<ReplayDivergenceInit[]> {
  const divergences: ReplayDivergenceInit[] = [];
  const { build, pass, signal } = input;
  throwIfAborted(signal, "The replay");
  const rebuilt = await build.rebuildAll(commits, signal);
  for (const [position, commit] of commits.entries()) {
    const built = rebuilt[position];
    if (!built)
      divergences.push({
        kind: "tree",
        pass,
        recorded: commit.tree,
        message: `The patch of commit ${commit.id} does not apply to the replay's files; its commit is left out of the replay.`,
      });
    else if (built.tree !== commit.tree)
      divergences.push({
        kind: "tree",
        pass,
        recorded: commit.tree,
        actual: built.tree,
        message: `Rebuilding commit ${commit.id} gave tree ${built.tree}, not the recorded ${commit.tree}: the replay's files differ from the recording's.`,
      });
    else if (built.parent === commit.parents[0] && built.id !== commit.id)
      divergences.push({
        kind: "commit",
        pass,
        recorded: commit.id,
        actual: built.id,
        message:
          `Rebuilding commit ${commit.id} from its recorded parent gave commit ${built.id}: the journal's commit fields ` +
          "(message, identities or dates) do not match the commit it names, so the journal was edited. Record the run again.",
      });
    // Under fail nothing after the first divergence is kept; under warn every rebuilt commit is (a skipped one is not).
    if (input.agent.divergence === "fail" && divergences.length > 0) break;
    if (built) build.accept(built);
  }
  return divergences;
}

function describeDifference(recorded: string, found: string): string {
  let index = 0;
  while (index < recorded.length && recorded[index] === found[index]) index += 1;
  return `they part at character ${index + 1}: recorded ${JSON.stringify(recorded.slice(index, index + 40))}, now ${JSON.stringify(found.slice(index, index + 40))}`;
}
