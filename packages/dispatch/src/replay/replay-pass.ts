import { addUsage, type ReplayAgent, type Usage } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import type { TurnOutcome } from "../turn/run-turn.js";
import type { FallbackSkip } from "../fallback/run-with-fallback.js";
import { reportFallback } from "../fallback/report-fallback.js";
import { reportSteer } from "../steering/attach-dispatch-steering.js";
import { RecordedFallback } from "./replay-turn.js";

/** What one replayed turn is asked. */
export interface ReplayRequest {
  readonly pass: number;
  readonly prompt: string;
  readonly resume?: { readonly id: string; readonly fork?: boolean };
  readonly steering?: readonly string[];
  readonly repair?: number;
}

/** Runs, captures and records one replayed turn (the turns stage's recordTurn). */
export type RecordReplayed = (agent: ReplayAgent, request: ReplayRequest) => Promise<TurnOutcome>;

/**
 * One pass of a replay, as it was recorded: the fallback switches of its turn, then, while the next recorded
 * turn is a steering resumption (`pendingSteering()`), that resumption with the recorded instructions.
 */
export async function replayPass(
  state: DispatchState,
  agent: ReplayAgent,
  request: ReplayRequest,
  record: RecordReplayed,
): Promise<TurnOutcome> {
  let outcome = await replayFallbacks(state, agent, request, record);
  let prompt = request.prompt;
  for (let steering = agent.pendingSteering(); steering; steering = agent.pendingSteering()) {
    const resume = outcome.conversationId ?? state.conversationId;
    for (const text of steering) reportSteer(state, "resumed", request.pass, text);
    // A run whose agent was stopped before it saved anything started over with the brief and the instructions.
    const restarted = [prompt, ...steering].join("\n\n");
    const recorded = nextTurn(agent)?.prompt;
    prompt = recorded === restarted ? restarted : steering.join("\n\n");
    outcome = await replayFallbacks(
      state,
      agent,
      {
        pass: request.pass,
        prompt,
        ...(resume && recorded !== restarted ? { resume: { id: resume } } : {}),
        steering,
      },
      record,
    );
  }
  return outcome;
}

/**
 * Typed-response corrections the recording made: replayed in order with their recorded prompts when the replay
 * gives no `response` to validate with (with one, the response settling asks for them as it did).
 */
export async function replayRepairs(state: DispatchState, agent: ReplayAgent, record: RecordReplayed): Promise<void> {
  for (let next = nextTurn(agent); next?.repair !== undefined; next = nextTurn(agent)) {
    const resume = state.conversationId;
    await replayFallbacks(
      state,
      agent,
      { pass: next.pass, prompt: next.prompt, ...(resume ? { resume: { id: resume } } : {}), repair: next.repair },
      record,
    );
  }
}

/** Replays a turn, and after each recorded fallback switch the turn of the next candidate, as the chain did. */
async function replayFallbacks(
  state: DispatchState,
  agent: ReplayAgent,
  request: ReplayRequest,
  record: RecordReplayed,
): Promise<TurnOutcome> {
  const skipped: FallbackSkip[] = [];
  let usage: Usage = {};
  for (;;) {
    try {
      const outcome = await record(asRecorded(agent), request);
      if (skipped.length > 0) {
        const last = state.turns[state.turns.length - 1];
        state.fallback = { agent: last?.agent ?? agent.name, skipped };
        if (last && Object.keys(usage).length > 0) state.turns[state.turns.length - 1] = { ...last, usage: addUsage(usage, last.usage) };
      }
      return outcome;
    } catch (error) {
      if (!(error instanceof RecordedFallback) || !error.turn.fallback) throw error;
      const { from, to, classification, rule, message, usage: spent } = error.turn.fallback;
      const skip: FallbackSkip = { agent: from, classification, ...(rule ? { rule } : {}), message };
      skipped.push(skip);
      if (spent) usage = addUsage(usage, spent);
      reportFallback(state, request.pass, skip, to, spent);
    }
  }
}

/** The replay agent named as the agent that ran its next recorded turn (a fallback chain's candidate). */
function asRecorded(agent: ReplayAgent): ReplayAgent {
  const name = nextTurn(agent)?.agent;
  // A view, not a copy: the agent's getters and single-use state stay shared.
  return name && name !== agent.name ? (Object.create(agent, { name: { value: name } }) as ReplayAgent) : agent;
}

function nextTurn(agent: ReplayAgent): ReplayAgent["turns"][number] | undefined {
  return agent.turns[agent.turns.length - agent.remainingTurns];
}
