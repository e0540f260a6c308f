import { setTimeout as sleep } from "node:timers/promises";
import { isOutpostError, throwIfAborted, type AgentEvent, type ReplayAgent, type ReplayDivergence, type SandboxLease } from "@outpost/core";
import type { TurnOutcome } from "../turn/run-turn.js";
import { findMarker } from "../turn/markers.js";
import { diverge } from "./replay-divergence.js";
import { rebuildCommit } from "./rebuild-commit.js";

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
  let previous = 0;
  let owed = 0;
  for (const { atMs, event } of turn.events) {
    throwIfAborted(input.signal, "The replay");
    owed += Math.min(Math.max(0, atMs - previous) / COMPRESSION, LONGEST_GAP_MS);
    previous = atMs;
    if (owed >= 4) {
      await sleep(owed);
      owed = 0;
    }
    input.onEvent(event);
  }
  for (const commit of turn.commits) {
    throwIfAborted(input.signal, "The replay");
    const rebuilt = await rebuildCommit(input.lease, commit, input.signal).catch((error: unknown) => {
      if (!isOutpostError(error, "replay")) throw error;
      report({ kind: "tree", pass, recorded: commit.tree, message: `${error.message} Its commit is left out of the replay.` });
      return undefined;
    });
    if (rebuilt && rebuilt.tree !== commit.tree)
      report({
        kind: "tree",
        pass,
        recorded: commit.tree,
        found: rebuilt.tree,
        message: `Rebuilding commit ${commit.id} gave tree ${rebuilt.tree}, not the recorded ${commit.tree}: the replay's files differ from the recording's.`,
      });
  }
  const marker = turn.marker && input.markers.includes(turn.marker) ? turn.marker : findMarker(turn.text, input.markers);
  return {
    text: turn.text,
    usage: turn.usage,
    ...(turn.conversationId ? { conversationId: turn.conversationId } : {}),
    ...(marker ? { marker } : {}),
    settled: turn.settled,
    status: 0,
    durationMs: Date.now() - started,
  };
}

function describeDifference(recorded: string, found: string): string {
  let index = 0;
  while (index < recorded.length && recorded[index] === found[index]) index += 1;
  return `they part at character ${index + 1}: recorded ${JSON.stringify(recorded.slice(index, index + 40))}, now ${JSON.stringify(found.slice(index, index + 40))}`;
}
