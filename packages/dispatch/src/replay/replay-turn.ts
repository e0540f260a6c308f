import { setTimeout as sleep } from "node:timers/promises";
import {
  isOutpostError,
  throwIfAborted,
  type AgentEvent,
  type RecordedCommit,
  type ReplayAgent,
  type ReplayDivergence,
  type ReplayEvent,
  type SandboxLease,
} from "@outpost/core";
import type { TurnOutcome } from "../turn/run-turn.js";
import { findMarker } from "../turn/markers.js";
import { diverge } from "./replay-divergence.js";
import { rebuildCommit, type RebuiltCommit } from "./rebuild-commit.js";

export interface ReplayTurnInput {
  readonly agent: ReplayAgent;
  readonly lease: SandboxLease;
  readonly pass: number;
  readonly prompt: string;
  readonly markers: readonly string[];
  readonly signal?: AbortSignal;
  readonly onEvent: (event: AgentEvent) => void;
  /** Receives each divergence the policy let through (and the one it throws for). */
  readonly onDivergence: (divergence: ReplayDivergence) => void;
  readonly warn: (message: string) => void;
}

// Recorded gaps are replayed a hundred times faster, and never longer than this.
const COMPRESSION = 100;
const LONGEST_GAP_MS = 50;

/**
 * Plays one recorded turn in place of an agent process: checks the brief against the recording, re-emits
 * the recorded events with their timing compressed, and rebuilds the turn's commits in the sandbox.
 */
export async function replayTurn(input: ReplayTurnInput): Promise<TurnOutcome> {
  const { agent, pass } = input;
  const started = Date.now();
  const report = (divergence: ReplayDivergence): void => {
    input.onDivergence(divergence);
    diverge(agent.divergence, divergence, input.warn);
  };
  const turn = agent.nextTurn();
  if (!turn) {
    report({
      kind: "exhausted",
      pass,
      message: `The dispatch asked for turn ${pass}, but the journal holds only ${agent.turns.length} turn(s). Replay with the passes and markers the run was recorded with.`,
    });
    throw new Error("unreachable: an exhausted replay always fails");
  }
  if (turn.prompt !== input.prompt)
    report({
      kind: "prompt",
      pass,
      recorded: turn.prompt,
      found: input.prompt,
      message: `The brief of turn ${pass} differs from the recorded one (${describeDifference(turn.prompt, input.prompt)}). Replay with the brief the run was recorded with.`,
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
    await playEvents(input, turn.events);
  } finally {
    // Settles before the turn ends either way: no git runs on after an abort, no rejection is left unhandled.
    await rebuilding.catch(() => undefined);
  }
  for (const outcome of await rebuilding) {
    const { commit } = outcome;
    if ("error" in outcome) {
      if (!isOutpostError(outcome.error, "replay")) throw outcome.error;
      report({ kind: "tree", pass, recorded: commit.tree, message: `${outcome.error.message} Its commit is left out of the replay.` });
    } else if (outcome.rebuilt.tree !== commit.tree)
      report({
        kind: "tree",
        pass,
        recorded: commit.tree,
        found: outcome.rebuilt.tree,
        message: `Rebuilding commit ${commit.id} gave tree ${outcome.rebuilt.tree}, not the recorded ${commit.tree}: the replay's files differ from the recording's.`,
      });
  }
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

/** Re-emits the recorded events, each gap between them compressed. */
async function playEvents(input: ReplayTurnInput, events: readonly ReplayEvent[]): Promise<void> {
  let previous = 0;
  let owed = 0;
  for (const { atMs, event } of events) {
    throwIfAborted(input.signal, "The replay");
    owed += Math.min(Math.max(0, atMs - previous) / COMPRESSION, LONGEST_GAP_MS);
    previous = atMs;
    if (owed >= 4) {
      await sleep(owed);
      owed = 0;
    }
    input.onEvent(event);
  }
}

type Rebuilt = { readonly commit: RecordedCommit } & ({ readonly rebuilt: RebuiltCommit } | { readonly error: unknown });

/** Rebuilds the commits in order; a commit that fails stops the ones after it only when its failure is no divergence. */
async function rebuildCommits(input: ReplayTurnInput, commits: readonly RecordedCommit[]): Promise<Rebuilt[]> {
  const outcomes: Rebuilt[] = [];
  for (const commit of commits) {
    throwIfAborted(input.signal, "The replay");
    try {
      outcomes.push({ commit, rebuilt: await rebuildCommit(input.lease, commit, input.signal) });
    } catch (error) {
      outcomes.push({ commit, error });
      if (!isOutpostError(error, "replay")) break;
    }
  }
  return outcomes;
}

function describeDifference(recorded: string, found: string): string {
  let index = 0;
  while (index < recorded.length && recorded[index] === found[index]) index += 1;
  return `they part at character ${index + 1}: recorded ${JSON.stringify(recorded.slice(index, index + 40))}, now ${JSON.stringify(found.slice(index, index + 40))}`;
}
