import { openWorkspace, type WorkspacePlan } from "../workspace/open-workspace.js";
import { claimNamedBranch } from "../workspace/named-claim.js";
import { applyCopies } from "../workspace/copies.js";
import { runHostHooks } from "../hooks/run-hooks.js";
import { note, type DispatchState } from "./dispatch-state.js";
import { withinLimit } from "./stage-limit.js";

/**
 * Stage `workspace`: claims a named branch, opens the worktree, applies `copies` and runs the
 * `workspaceReady` hooks (none of it with the `workspace` option). A failure here discards what this dispatch created (see `dispatch()`).
 */
export async function workspaceStage(state: DispatchState): Promise<void> {
  const { resolved, repository, dispatchId, options } = state;
  if (resolved.shared) {
    // A workspace from openWorkspace() is already prepared: this dispatch starts from its HEAD and never removes it.
    state.workspace = await resolved.shared.forDispatch();
    state.journal?.describe({ baseline: state.workspace.baseline });
    return;
  }
  if (resolved.branch.mode === "named") state.claim = await claimNamedBranch(repository.root, resolved.branch.name, dispatchId);
  // The worktree and branch are on record before they exist: a kill inside `git worktree add` leaves nothing unnamed.
  const onPlan = (plan: WorkspacePlan): Promise<void> => {
    state.planned = plan;
    const { directory, branch, branchCreated } = plan;
    return note(state, state.activity.update({ directory, branch, worktreeCreated: true, branchCreated }));
  };
  let workspace = await withinLimit(state, "gitMs", (signal) =>
    openWorkspace({ repository, policy: resolved.branch, dispatchId, label: options.label, signal, onPlan }),
  );
  state.workspace = workspace;
  state.journal?.describe({ baseline: workspace.baseline });
  // Bookkeeping writes overlap the next steps; all of them are on disk before the agent starts.
  state.recorded.push(
    note(
      state,
      state.activity.update({
        directory: workspace.directory,
        branch: workspace.branch,
        worktreeCreated: workspace.created,
        branchCreated: workspace.branchCreated === true,
        baseline: workspace.baseline,
        ...(workspace.target ? { target: workspace.target } : {}),
      }),
    ),
  );
  if (workspace.created && resolved.copies.length > 0) {
    const opened = workspace;
    workspace = {
      ...workspace,
      untrackedCopies: await withinLimit(state, "copyMs", (signal) =>
        applyCopies(repository.root, opened.directory, resolved.copies, signal),
      ),
    };
    state.workspace = workspace;
  }
  if (workspace.created)
    await runHostHooks("workspaceReady", options.hooks?.workspaceReady ?? [], workspace.directory, options.signal, dispatchId);
}
