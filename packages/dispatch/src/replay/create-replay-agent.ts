import {
  OutpostError,
  type RecordedCommit,
  type ReplayAgent,
  type ReplayDivergencePolicy,
  type ReplayEvent,
  type ReplayTurn,
} from "@outpost/core";
import type { Journal } from "../journal/read-journal.js";

export interface CreateReplayAgentOptions {
  /** A journal read with `readJournal()`. */
  readonly journal: Journal;
  /** `fail` (default) throws code `replay` at the first divergence; `warn` reports each and continues. */
  readonly divergence?: ReplayDivergencePolicy;
}

/** What the engine needs of a replay agent beyond the public contract: where the recording started. */
export interface ReplayOrigin {
  readonly baseline?: string;
  readonly reference: Journal["reference"];
}

const origins = new WeakMap<ReplayAgent, ReplayOrigin>();

/** The recording's origin, for an agent made by createReplayAgent(). */
export function replayOrigin(agent: ReplayAgent): ReplayOrigin | undefined {
  return origins.get(agent);
}

/**
 * An agent that replays a recorded journal: the dispatch re-emits the recorded events and usage with the
 * timing compressed, and rebuilds each recorded commit from the same baseline. Single use: each turn is
 * consumed once.
 */
export function createReplayAgent(options: CreateReplayAgentOptions): ReplayAgent {
  const { journal } = options;
  const divergence = options.divergence ?? "fail";
  if (divergence !== "fail" && divergence !== "warn")
    throw new OutpostError("configuration", `divergence must be "fail" or "warn", got ${JSON.stringify(divergence)}.`);
  if (!journal || !Array.isArray(journal.records))
    throw new OutpostError("configuration", "journal must be a journal read with readJournal({ transport, reference }).");
  const turns = Object.freeze(turnsOf(journal));
  let next = 0;
  const agent: ReplayAgent = {
    kind: "replay",
    name: journal.agent,
    source: journal.source,
    divergence,
    turns,
    get remainingTurns() {
      return turns.length - next;
    },
    nextTurn() {
      const turn = turns[next];
      if (turn) next += 1;
      return turn;
    },
    pendingSteering() {
      return turns[next]?.steering;
    },
    usage: "events",
    resumable: false,
    forkable: false,
    capture: false,
  };
  origins.set(agent, { ...(journal.baseline ? { baseline: journal.baseline } : {}), reference: journal.reference });
  return agent;
}

/** Groups the records into turns; a turn whose end was never journaled is kept, marked incomplete. */
function turnsOf(journal: Journal): ReplayTurn[] {
  interface Building {
    pass: number;
    prompt: string;
    steering?: readonly string[];
    events: ReplayEvent[];
    commits: RecordedCommit[];
    end?: Extract<Journal["records"][number], { kind: "turn-end" }>;
  }
  const building: Building[] = [];
  for (const record of journal.records) {
    if (record.kind === "turn-start") {
      building.push({
        pass: record.pass,
        prompt: record.prompt,
        ...(record.steering ? { steering: record.steering } : {}),
        events: [],
        commits: [],
      });
      continue;
    }
    const current = [...building].reverse().find((turn) => turn.pass === record.pass);
    if (!current) continue;
    if (record.kind === "event") current.events.push({ atMs: record.atMs, event: record.event });
    else if (record.kind === "commit") current.commits.push(record.commit);
    else current.end = record;
  }
  return building.map((turn) =>
    Object.freeze({
      pass: turn.pass,
      prompt: turn.prompt,
      ...(turn.steering ? { steering: turn.steering } : {}),
      events: turn.events,
      text: turn.end?.text ?? "",
      usage: turn.end?.usage ?? { incomplete: true as const },
      ...(turn.end?.conversationId ? { conversationId: turn.end.conversationId } : {}),
      ...(turn.end?.marker ? { marker: turn.end.marker } : {}),
      settled: turn.end?.settled ?? false,
      durationMs: turn.end?.durationMs ?? 0,
      ...(turn.end?.interrupted === "steering" ? { interrupted: "steering" as const } : {}),
      commits: turn.commits,
      complete: turn.end !== undefined,
    }),
  );
}
