import { cleanDispatches, listDispatches } from "@outpost/dispatch";
import { runGit } from "./run-git.js";

/**
 * Leaves nothing of one ended attempt in the worker's cache, whatever ended it (success, failure, abort, a lost
 * fence): its dispatch's orphaned agents, sandboxes and temporary folders (through the engine's clean), its
 * worktree and local branch, then the dispatch's record. What had to be kept was kept elsewhere before (the
 * result transport, the remote). Returns what was removed.
 */
export async function endAttempt(
  directory: string,
  localBranch: string,
  removeContainer?: (id: string, provider: string) => Promise<void>,
): Promise<string[]> {
  const ids = (await listDispatches({ repository: directory }))
    .filter((entry) => entry.record.branch === localBranch)
    .map((entry) => entry.record.dispatchId);
  const clean = () => cleanDispatches({ repository: directory, ids, ...(removeContainer ? { removeContainer } : {}) });
  const removed: string[] = [];
  if (ids.length > 0) for (const cleaned of (await clean()).cleaned) removed.push(...cleaned.actions);
  const listing = await runGit(directory, ["worktree", "list", "--porcelain"]);
  for (const block of listing.split("\n\n").slice(1)) {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    if (path === undefined || /^branch (.+)$/m.exec(block)?.[1] !== `refs/heads/${localBranch}`) continue;
    await runGit(directory, ["worktree", "remove", "--force", "--force", path]);
    removed.push(`removed worktree ${path}`);
  }
  await runGit(directory, ["worktree", "prune"]);
  const ref = `refs/heads/${localBranch}`;
  if ((await runGit(directory, ["for-each-ref", "--format=%(refname)", ref])) === ref) {
    await runGit(directory, ["update-ref", "-d", ref]);
    removed.push(`deleted branch ${localBranch}`);
  }
  // The records the clean kept for the work it left in place: that work is gone now.
  const left = (await listDispatches({ repository: directory })).filter((entry) => ids.includes(entry.record.dispatchId));
  if (left.length > 0) for (const cleaned of (await clean()).cleaned) removed.push(...cleaned.actions);
  return removed;
}
