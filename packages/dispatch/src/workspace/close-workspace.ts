import type { Workspace } from "./workspace.js";
import { gitStatus } from "../git/run-git.js";
import { withFileLock } from "./file-lock.js";
import { lockPath } from "./outpost-directory.js";

export interface ClosedWorkspace {
  /** False when the worktree was removed. */
  readonly kept: boolean;
  /** Why it was kept, when it was. */
  readonly reason?: string;
}

/**
 * Removes a worktree this dispatch created, when nothing in it would be lost: it must be clean and hold
 * no untracked copies. After an integration the work branch is deleted too (its commits are merged).
 */
export async function closeWorkspace(workspace: Workspace, options: { readonly deleteBranch: boolean }): Promise<ClosedWorkspace> {
  if (!workspace.created) return { kept: true, reason: "not created by this dispatch" };
  if (workspace.untrackedCopies.length > 0) {
    return { kept: true, reason: `untracked or ignored copies: ${workspace.untrackedCopies.join(", ")}` };
  }
  // Without --force, git refuses to remove a worktree with modified or untracked files: nothing is lost.
  return withFileLock(lockPath(workspace.root, "worktrees"), async (): Promise<ClosedWorkspace> => {
    const removed = await gitStatus(workspace.root, ["worktree", "remove", workspace.directory]);
    if (removed.status !== 0)
      return { kept: true, reason: `uncommitted changes in the worktree (${removed.stderr.trim().split("\n")[0]})` };
    if (options.deleteBranch && workspace.branch) await gitStatus(workspace.root, ["branch", "-D", workspace.branch]);
    return { kept: false };
  });
}
