import { rm } from "node:fs/promises";
import { join } from "node:path";
import { git, gitStatus } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";

/**
 * `includeUncommitted`: the host's uncommitted versions of `paths` went to the sandbox, and its work
 * supersedes them (they are in the recovery backup): they go back to the baseline so the work applies.
 */
export async function resetPending(workspace: Workspace, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  const { directory, baseline } = workspace;
  await git(directory, ["reset", "--quiet", baseline, "--", ...paths]);
  for (const path of paths) {
    const inBaseline = (await gitStatus(directory, ["cat-file", "-e", `${baseline}:${path}`])).status === 0;
    if (inBaseline) await git(directory, ["checkout-index", "--index", "--force", "--", path]);
    else await rm(join(directory, path), { force: true });
  }
}
