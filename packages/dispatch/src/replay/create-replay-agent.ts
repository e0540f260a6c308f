import {
  OutpostError,
  type RecordedCommit,
  type ReplayAgent,
  type ReplayDivergencePolicy,
  type ReplayEvent,
  type ReplayFallback,
  type ReplayInjection,
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
  type Record = Journal["records"][number];
  interface Building {
    start: Extract<Record, { kind: "turn-start" }>;
    events: ReplayEvent[];
    injections: ReplayInjection[];
    commits: RecordedCommit[];
    end?: Extract<Record, { kind: "turn-end" }>;
    fallback?: Extract<Record, { kind: "fallback" }>;
  }
  const building: Building[] = [];
  for (const record of journal.records) {
    if (record.kind === "turn-start") {
      building.push({ start: record, events: [], injections: [], commits: [] });
      continue;
    }
    const current = [...building].reverse().find((turn) => turn.start.pass === record.pass);
    if (!current) continue;
    if (record.kind === "event") current.events.push({ atMs: record.atMs, event: record.event });
    else if (record.kind === "steer") current.injections.push({ text: record.text, afterEvents: current.events.length });
    else if (record.kind === "commit") current.commits.push(record.commit);
    else if (record.kind === "fallback") current.fallback = record;
    else current.end = record;
  }
  return building.map(({ start, events, injections, commits, end, fallback }) =>
    Object.freeze({
      pass: start.pass,
      prompt: start.prompt,
      ...(start.steering ? { steering: start.steering } : {}),
      ...(start.agent ? { agent: start.agent } : {}),
      ...(start.repair ? { repair: start.repair } : {}),
      ...(injections.length > 0 ? { injections } : {}),
      ...(fallback ? { fallback: fallbackOf(fallback) } : {}),
      events,
      text: end?.text ?? "",
      usage: end?.usage ?? fallback?.usage ?? { incomplete: true as const },
      ...(end?.conversationId ? { conversationId: end.conversationId } : {}),
      ...(end?.marker ? { marker: end.marker } : {}),
      settled: end?.settled ?? false,
      durationMs: end?.durationMs ?? 0,
      ...(end?.interrupted === "steering" ? { interrupted: "steering" as const } : {}),
      commits,
      // A turn that failed over to the next candidate ended there: its failure is its end.
      complete: end !== undefined || fallback !== undefined,
    }),
  );
}

function fallbackOf(record: Extract<Journal["records"][number], { kind: "fallback" }>): ReplayFallback {
  const { from, to, classification, rule, message, usage } = record;
  return { from, to, classification, ...(rule ? { rule } : {}), message, ...(usage ? { usage } : {}) };
}
