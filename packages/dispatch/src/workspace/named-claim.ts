import { createHash } from "node:crypto";
import { OutpostError } from "@outpost/core";
import { describeHolder, tryFileLock, type FileLock } from "./file-lock.js";
import { lockPath } from "./outpost-directory.js";
import { slug } from "./slug.js";

/**
 * A named branch's managed worktree serves one dispatch at a time: two agents in one worktree overwrite
 * each other's files, and the first to close would remove the worktree under the other. The claim is a
 * lock held for the whole dispatch; a second dispatch is refused at once (code `conflict`), and a claim
 * left by a crashed dispatch is taken over.
 */
export async function claimNamedBranch(root: string, branch: string, dispatchId: string): Promise<FileLock> {
  const name = `branch-${slug(branch, 40) || "branch"}-${createHash("sha256").update(branch).digest("hex").slice(0, 12)}`;
  const lock = await tryFileLock(lockPath(root, name), { details: { dispatch: dispatchId, branch } });
  if ("release" in lock) return lock;
  throw new OutpostError(
    "conflict",
    `Branch ${JSON.stringify(branch)} is in use by another dispatch (${describeHolder(lock)}); ` +
      `two agents in one worktree would overwrite each other's work. Wait for it to finish, or dispatch on another branch name.`,
    { details: { branch, ...(lock.details?.dispatch ? { holder: lock.details.dispatch } : {}) } },
  );
}
