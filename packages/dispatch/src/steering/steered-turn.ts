import { randomUUID } from "node:crypto";
import type { AgentAdapter, SandboxLease } from "@outpost/core";
import type { TurnOutcome } from "../turn/run-turn.js";
import type { DispatchSteering, TurnSteering } from "./dispatch-steering.js";

/** What a steered turn needs of its request: the pass, and the conversation it continues. */
export interface SteerableRequest {
  readonly pass: number;
  readonly resume?: { readonly id: string; readonly fork?: boolean };
  /** Pre-assigned id of a new conversation. */
  readonly conversationId?: string;
}

/** How a steered turn's follow-up is built from the turn it stopped. */
export interface SteeredRequests<R> {
  /** The turn that resumes `conversationId` with the instructions. */
  resume(request: R, conversationId: string, instructions: readonly string[]): R;
  /** The turn that starts over with the instructions: the stopped agent had saved no conversation to resume. */
  restart(request: R, instructions: readonly string[]): R;
}

/**
 * Runs one turn under steering: instructions that were not injected into it (the agent was stopped for them,
 * or they came after its final event) resume its conversation in a new turn, until none is left. An agent
 * stopped so early that it saved no conversation (a pre-assigned id, stopped at once) cannot be resumed:
 * its new conversation starts over with the instructions. `run` runs and records one turn.
 */
export async function runSteered<R extends SteerableRequest>(
  steering: DispatchSteering,
  agent: AgentAdapter,
  lease: SandboxLease,
  request: R,
  requests: SteeredRequests<R>,
  run: (request: R, control: TurnSteering) => Promise<TurnOutcome>,
): Promise<TurnOutcome> {
  // Where the agent takes the id of a new conversation, it is known from the start: it can be stopped at once.
  const named = (candidate: R): R =>
    !candidate.resume && agent.namesConversations === true ? { ...candidate, conversationId: randomUUID() } : candidate;
  let next: R = named(request);
  for (;;) {
    const control = steering.open(agent, lease, next.pass, next.resume && !next.resume.fork ? next.resume.id : next.conversationId);
    let outcome: TurnOutcome;
    try {
      outcome = await run(next, control);
    } finally {
      control.close();
    }
    const conversationId = outcome.conversationId;
    const waiting = conversationId === undefined ? [] : steering.takeForResume(agent);
    if (waiting.length === 0 || conversationId === undefined) return outcome;
    for (const instruction of waiting) steering.resumed(instruction, next.pass);
    const instructions = waiting.map((instruction) => instruction.text);
    next =
      outcome.conversationMissing === true && !next.resume
        ? named(requests.restart(next, instructions))
        : requests.resume(next, conversationId, instructions);
  }
}
