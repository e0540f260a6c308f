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

/**
 * Runs one turn under steering: instructions that were not injected into it (the agent was stopped for them,
 * or they came after its final event) resume its conversation in a new turn, until none is left.
 * `resumeWith` builds the resumed request; `run` runs and records one turn.
 */
export async function runSteered<R extends SteerableRequest>(
  steering: DispatchSteering,
  agent: AgentAdapter,
  lease: SandboxLease,
  request: R,
  resumeWith: (request: R, conversationId: string, instructions: readonly string[]) => R,
  run: (request: R, control: TurnSteering) => Promise<TurnOutcome>,
): Promise<TurnOutcome> {
  // Where the agent takes the id of a new conversation, it is known from the start: it can be stopped at once.
  let next: R = !request.resume && agent.namesConversations === true ? { ...request, conversationId: randomUUID() } : request;
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
    next = resumeWith(
      next,
      conversationId,
      waiting.map((instruction) => instruction.text),
    );
  }
}
