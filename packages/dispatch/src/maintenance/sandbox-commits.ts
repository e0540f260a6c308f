import { lstat } from "node:fs/promises";
import type { ActivityRecord } from "../activity/activity-record.js";
import { gitStatus } from "../git/run-git.js";
import { sandboxMayHoldWork } from "./sandbox-reopener.js";

/**
 * Commits a dead dispatch's sandbox still holds, not yet on the host's branch: a mounted sandbox's private git
 * directory is counted; a sandbox with its own file system (isolated Docker, a cloud sandbox) in which the agent
 * worked cannot be read from here (`unknown`: a clean brings them back); none, or the agent never ran there: 0.
 */
export async function sandboxCommits(record: ActivityRecord): Promise<number | "unknown"> {
  const gitDirectory = record.sandboxGit;
  if (gitDirectory && record.baseline && (await lstat(gitDirectory).catch(() => undefined))?.isDirectory()) {
    const ref = record.branch ? `refs/heads/${record.branch}` : "HEAD";
    const counted = await gitStatus(gitDirectory, [`--git-dir=${gitDirectory}`, "rev-list", "--count", ref, `^${record.baseline}`]);
    return counted.status === 0 ? Number(counted.stdout.trim()) : "unknown";
  }
  return sandboxMayHoldWork(record) ? "unknown" : 0;
}
