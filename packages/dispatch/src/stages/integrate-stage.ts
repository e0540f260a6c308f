import { finishWorkspace } from "../workspace/finish-workspace.js";
import { withinLimit } from "./stage-limit.js";
import { workspaceOf, type DispatchState } from "./dispatch-state.js";

/** Stage `integrate`: the workspace's policy merges the work into its target, or leaves it on its branch. */
export async function integrateStage(state: DispatchState): Promise<void> {
  const finish = finishWorkspace(workspaceOf(state));
  await withinLimit(state, "mergeMs", (signal) => finish.integrate(state.identity, signal, (message) => state.observers.warn(message)));
  state.resultBranch = finish.resultBranch;
}
