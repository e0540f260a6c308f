import { finishWorkspace } from "../workspace/finish-workspace.js";
import { note, workspaceOf, type DispatchState } from "./dispatch-state.js";
import { settleRelease } from "./sync-back-stage.js";

/**
 * Stage `close`: a remote sandbox's release has ended; the workspace keeps or removes itself; a kept
 * worktree stays listed (`outpost ps`) until it is recovered or cleaned, otherwise the activity record goes.
 */
export async function closeStage(state: DispatchState): Promise<void> {
  const workspace = workspaceOf(state);
  await settleRelease(state);
  if (state.resolved.shared) {
    // The workspace option outlives the dispatch: only the workspace's own close() ends it.
    state.closed = { kept: true };
    await state.activity
      .remove()
      .catch((error: unknown) => state.observers.warn(`Could not remove the activity record: ${String(error)}.`));
    return;
  }
  state.cleanupFailed = true;
  const closed = await finishWorkspace(workspace).close();
  state.closed = closed;
  state.cleanupFailed = false;
  if (closed.kept && workspace.created && closed.reason)
    state.observers.warn(`Kept the worktree ${workspace.directory}: ${closed.reason}.`);
  await (closed.kept && workspace.created
    ? note(state, state.activity.update({ state: "finished", phase: "close" }))
    : state.activity.remove().catch((error: unknown) => state.observers.warn(`Could not remove the activity record: ${String(error)}.`)));
}
