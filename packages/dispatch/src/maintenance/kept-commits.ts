import type { ActivityRecord } from "../activity/activity-record.js";
import { branchExists } from "../git/repository.js";
import { gitStatus } from "../git/run-git.js";

/**
 * Commits only a dispatch's own branch holds (reachable from no other local branch): the work a clean
 * must not lose. A branch the dispatch did not create belongs to the user and is never judged.
 */
export async function keptCommits(record: ActivityRecord): Promise<string[]> {
  const branch = record.branch;
  if (!branch || !record.branchCreated || !(await branchExists(record.repository, branch))) return [];
  const listed = await gitStatus(record.repository, [
    "rev-list",
    "--reverse",
    `refs/heads/${branch}`,
    "--not",
    `--exclude=${branch}`,
    "--branches",
  ]);
  return listed.status === 0 ? listed.stdout.split("\n").filter(Boolean) : [];
}
