import type { ReplayAgent } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import { replayOrigin } from "./create-replay-agent.js";
import { diverge } from "./replay-divergence.js";

/** A replay starts where the recording started; elsewhere, rebuilt commits cannot keep their ids. */
export function checkReplayBaseline(state: DispatchState, agent: ReplayAgent, baseline: string): void {
  const recorded = replayOrigin(agent)?.baseline;
  if (!recorded || recorded === baseline) return;
  const divergence = {
    kind: "baseline" as const,
    recorded,
    found: baseline,
    message: `The repository starts at ${baseline}, but the run was recorded from ${recorded}: rebuilt commits will not keep their ids. Replay on a checkout of ${recorded}.`,
  };
  state.divergences.push(divergence);
  diverge(agent.divergence, divergence, (message) => state.observers.warn(message));
}
