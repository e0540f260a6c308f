import { OutpostError } from "@outpost/core";
import { gitStatus } from "../git/run-git.js";
import { HOST_READ_PATHS } from "./host-read-paths.js";
import type { Workspace } from "./workspace.js";

/**
 * Refuses work whose commits write a path the host reads from `.outpost` (HOST_READ_PATHS): merged into
 * the checkout, or checked out later, git would replace the user's `.outpost/.env` (ignored files are
 * overwritten without a word) with the agent's. Checked before integration, so the target never moves.
 */
export async function assertCommitsLeaveOutpostAlone(workspace: Workspace, signal?: AbortSignal): Promise<void> {
  const pathspecs = HOST_READ_PATHS.map((entry) => `:(top,literal)${entry.path}`);
  const changed = await gitStatus(
    workspace.directory,
    ["diff", "--name-only", "-z", "--no-renames", workspace.baseline, "HEAD", "--", ...pathspecs],
    {
      signal,
    },
  );
  if (changed.status !== 0)
    throw new OutpostError(
      "workspace",
      `Could not list what the agent's commits change in ${workspace.directory}: ${changed.stderr.trim()}.`,
    );
  const paths = changed.stdout.split("\0").filter(Boolean);
  if (paths.length === 0) return;
  throw new OutpostError(
    "workspace",
    `The agent's commits on ${workspace.branch ?? "HEAD"} write ${paths
      .slice(0, 5)
      .map((path) => JSON.stringify(path))
      .join(", ")}` +
      `${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}, under .outpost/, which Outpost reads and runs on the host; ` +
      `they were not integrated. Review the branch and drop those files from it (git rm --cached) before using it.`,
    { details: { paths, branch: workspace.branch } },
  );
}
