import { runGit } from "./run-git.js";

const ATTEMPT_BRANCHES = "refs/heads/outpost/queue/";

/**
 * Removes every worktree and local branch of a queue attempt in a cached checkout. Only for a cache no job of
 * this worker is using (at start): an attempt's branch lives until its work is parked on the remote.
 */
export async function dropAttemptWork(directory: string): Promise<string[]> {
  const dropped: string[] = [];
  const listing = await runGit(directory, ["worktree", "list", "--porcelain"]);
  for (const block of listing.split("\n\n").slice(1)) {
    const path = /^worktree (.+)$/m.exec(block)?.[1];
    const branch = /^branch (.+)$/m.exec(block)?.[1];
    if (path === undefined || branch === undefined || !branch.startsWith(ATTEMPT_BRANCHES)) continue;
    await runGit(directory, ["worktree", "remove", "--force", "--force", path]);
    dropped.push(`removed worktree ${path}`);
  }
  await runGit(directory, ["worktree", "prune"]);
  const branches = await runGit(directory, ["for-each-ref", "--format=%(refname)", ATTEMPT_BRANCHES]);
  for (const ref of branches.split("\n").filter(Boolean)) {
    await runGit(directory, ["update-ref", "-d", ref]);
    dropped.push(`deleted branch ${ref.slice("refs/heads/".length)}`);
  }
  return dropped;
}
