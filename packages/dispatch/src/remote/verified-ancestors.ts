import { gitStatus } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { objectId } from "./sandbox-git-command.js";

/** How many of the sandbox's refs are considered: a hostile sandbox cannot make the host walk millions. */
const MOST_CANDIDATES = 64;

/** The sandbox's branch tips and what it was last seeded with, newest first: the candidates for a delta. */
export const HELD_REFS_ARGS: readonly string[] = Object.freeze([
  "for-each-ref",
  `--count=${MOST_CANDIDATES}`,
  "--sort=-committerdate",
  "--format=%(objectname)",
  "refs/outpost/seeded",
  "refs/heads",
]);

/**
 * The commits a sandbox says it holds (`listed`: what HELD_REFS_ARGS printed there) that the host knows and
 * verifies as ancestors of the baseline: a delta bundle may leave them out. What the sandbox printed is only
 * a hint; a claimed commit it does not really hold makes its own fetch of the delta fail.
 */
export async function verifiedAncestors(workspace: Workspace, listed: string, signal?: AbortSignal): Promise<string[]> {
  const candidates = [...new Set(listed.split("\n").map((line) => objectId(line.trim())))]
    .filter((commit): commit is string => commit !== undefined)
    .slice(0, MOST_CANDIDATES);
  const verified: string[] = [];
  for (const commit of candidates) {
    const known = await gitStatus(workspace.root, ["merge-base", "--is-ancestor", commit, workspace.baseline], { signal });
    if (known.status === 0) verified.push(commit);
  }
  return verified;
}
