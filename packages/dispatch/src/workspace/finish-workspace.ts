import type { GitIdentity } from "../git/git-identity.js";
import type { Workspace } from "./workspace.js";
import { closeWorkspace, type ClosedWorkspace } from "./close-workspace.js";
import { integrateBranch } from "./integrate-branch.js";

/** How a workspace ends after the agent's work is home: the branch policy, decided in this one place. */
export interface WorkspaceFinish {
  /** The branch a dispatch result names: the target after an integration, else the work branch. */
  readonly resultBranch: string | undefined;
  /** Merges the work branch into its target (integrate), or does nothing (current, named). */
  integrate(identity: GitIdentity, signal?: AbortSignal, onWait?: (message: string) => void): Promise<void>;
  /**
   * Keeps or removes the worktree: the host checkout (current) is always kept; a managed worktree is removed
   * when nothing in it would be lost, and after an integration its merged work branch goes too.
   */
  close(): Promise<ClosedWorkspace>;
}

export function finishWorkspace(workspace: Workspace): WorkspaceFinish {
  switch (workspace.mode) {
    case "current":
      return { resultBranch: workspace.branch, integrate: async () => undefined, close: async () => ({ kept: false }) };
    case "named":
      return {
        resultBranch: workspace.branch,
        integrate: async () => undefined,
        close: () => closeWorkspace(workspace, { deleteBranch: false }),
      };
    case "integrate":
      return {
        resultBranch: workspace.target,
        integrate: async (identity, signal, onWait) => {
          await integrateBranch(workspace, identity, signal, onWait);
        },
        close: () => closeWorkspace(workspace, { deleteBranch: true }),
      };
  }
}
