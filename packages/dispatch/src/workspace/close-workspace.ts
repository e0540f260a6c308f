import type { Workspace } from "./workspace.js";
import { gitScript, gitStatus, type GitResult } from "../git/run-git.js";
import { shellQuote } from "../process/shell-quote.js";
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
    const branch = options.deleteBranch ? workspace.branch : undefined;
    const removed = branch
      ? await removeWorktreeAndBranch(workspace.root, workspace.directory, branch)
      : await gitStatus(workspace.root, ["worktree", "remove", workspace.directory]);
    if (removed.status !== 0)
      return { kept: true, reason: `uncommitted changes in the worktree (${removed.stderr.trim().split("\n")[0]})` };
    return { kept: false };
  });
}

/**
 * `git worktree remove`, then (only when it succeeded) `git branch -D`, hardened alike, in one host process:
 * one spawn instead of two. The status is the removal's; a branch that cannot be deleted is left as it was.
 */
function removeWorktreeAndBranch(root: string, directory: string, branch: string): Promise<GitResult> {
  const script = `git "$@" worktree remove ${shellQuote(directory)} || exit\ngit "$@" branch -D ${shellQuote(branch)} >/dev/null 2>&1\nexit 0`;
  return gitScript(root, script, { what: "git worktree remove" });
}
