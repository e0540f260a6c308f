import type { ReplayAgent } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import { replayOrigin } from "./create-replay-agent.js";
import { diverge } from "./replay-divergence.js";

/** A replay starts where the recording started; elsewhere, rebuilt commits cannot keep their ids. */
export function checkReplayBaseline(state: DispatchState, agent: ReplayAgent, baseline: string): void {
  const recorded = replayOrigin(agent)?.baseline;
  if (!recorded || recorded === baseline) return;
  diverge(
    agent.divergence,
    {
      kind: "baseline",
      recorded,
      actual: baseline,
      message: `The repository starts at ${baseline}, but the run was recorded from ${recorded}: rebuilt commits will not keep their ids. Replay on a checkout of ${recorded}.`,
    },
    (divergence) => state.divergences.push(divergence),
    (message) => state.observers.warn(message),
  );
}
