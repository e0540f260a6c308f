import type { Workspace } from "./workspace.js";
import { gitStatus } from "../git/run-git.js";
import { withFileLock } from "./file-lock.js";
import { lockPath } from "./outpost-directory.js";

/**
 * Undoes a workspace that failed before the agent ran (a copy refused, a workspaceReady hook failed):
 * the worktree and branch this dispatch created hold nothing but what it put there, so they go.
 * Anything it did not create stays.
 */
export async function discardWorkspace(workspace: Workspace): Promise<void> {
  if (!workspace.created) return;
  await withFileLock(lockPath(workspace.root, "worktrees"), async () => {
    await gitStatus(workspace.root, ["worktree", "remove", "--force", "--force", workspace.directory]);
    await gitStatus(workspace.root, ["worktree", "prune"]);
    if (workspace.branchCreated && workspace.branch) await gitStatus(workspace.root, ["branch", "-D", "--", workspace.branch]);
  });
}
