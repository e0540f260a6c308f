import { finishWorkspace } from "../workspace/finish-workspace.js";
import { workspaceOf, type DispatchState } from "./dispatch-state.js";

/** Stage `integrate`: the workspace's policy merges the work into its target, or leaves it on its branch. */
export async function integrateStage(state: DispatchState): Promise<void> {
  const finish = finishWorkspace(workspaceOf(state));
  await finish.integrate(state.identity, state.options.signal, (message) => state.observers.warn(message));
  state.resultBranch = finish.resultBranch;
}
