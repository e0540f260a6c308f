import type { DispatchState } from "../stages/dispatch-state.js";

/** Tells the observation hub about each commit the dispatch brings back, once they are collected and integrated. */
export function reportCommits(state: DispatchState): void {
  const branch = state.resultBranch ?? state.workspace?.branch ?? "";
  for (const id of state.commits)
    state.observers.emit({
      type: "commit",
      dispatchId: state.dispatchId,
      label: state.options.label,
      id,
      branch,
      timestamp: new Date().toISOString(),
    });
}
