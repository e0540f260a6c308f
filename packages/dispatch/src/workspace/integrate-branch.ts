import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import type { Workspace } from "./workspace.js";
import { git, gitStatus } from "../git/run-git.js";
import { identityConfig, type GitIdentity } from "../git/git-identity.js";
import { withFileLock } from "./file-lock.js";
import { lockPath } from "./outpost-directory.js";
import { describeIndexLock, indexLockIn } from "../git/index-lock.js";

export interface Integration {
  readonly kind: "fast-forward" | "merge" | "up-to-date";
}

/**
 * Merges the workspace branch into its target without switching any checkout: a real merge is computed
 * in the object store (merge-tree + commit-tree), so a conflict never leaves a checkout half-merged. The
 * target then moves by fast-forward only: in the checkout that has it checked out (`merge --ff-only`,
 * which carries its files along and keeps unrelated local changes), else by a compare-and-swap
 * `update-ref`. Serialized per repository; a target that moved meanwhile is merged again.
 * A content conflict is code `conflict`; the branch and worktree are left untouched.
 */
export async function integrateBranch(
  workspace: Workspace,
  identity: GitIdentity,
  signal?: AbortSignal,
  onWait?: (message: string) => void,
): Promise<Integration> {
  const { root, branch, target } = workspace;
  if (!branch || !target)
    throw new OutpostError("configuration", "integrateBranch needs an integrate workspace with a branch and a target.");
  return withFileLock(
    lockPath(root, "integrate"),
    async (): Promise<Integration> => {
      // The common case in one process: the target is checked out and nobody moved it, so the checkout can
      // simply fast-forward to the work branch. Anything else takes the general path below.
      const checkedOut = await checkoutOf(workspace, target);
      // Past a limit (or cancelled) the target must not move any more.
      signal?.throwIfAborted();
      if (checkedOut && (await gitStatus(checkedOut, ["merge", "--ff-only", "--quiet", `refs/heads/${branch}`])).status === 0) {
        return { kind: "fast-forward" };
      }
      let blockedBy: string | undefined;
      for (let attempt = 0; attempt < 8; attempt += 1) {
        const [host, work] = (await git(root, ["rev-parse", `refs/heads/${target}^{commit}`, `refs/heads/${branch}^{commit}`])).split(
          "\n",
        ) as [string, string];
        // The common case: nobody moved the target since the worktree was made, so the work descends from it.
        const base = host === workspace.baseline ? host : await git(root, ["merge-base", host, work]);
        if (base === work) return { kind: "up-to-date" };
        const fastForward = base === host;
        const next = fastForward ? work : await mergeCommit(root, host, work, branch, target, identity);
        const checkout = await checkoutOf(workspace, target);
        signal?.throwIfAborted();
        const moved = checkout
          ? await gitStatus(checkout, ["merge", "--ff-only", "--quiet", next])
          : await gitStatus(root, ["update-ref", "-m", `outpost: integrate ${branch}`, `refs/heads/${target}`, next, host]);
        if (moved.status === 0) return { kind: fastForward ? "fast-forward" : "merge" };
        // Someone else's git command holds the checkout's index: wait for it rather than give up.
        if (/index\.lock/.test(moved.stderr)) {
          blockedBy = indexLockIn(moved.stderr) ?? join(workspace.gitDirectory, "index.lock");
          await new Promise((done) => setTimeout(done, 100 * (attempt + 1)));
          continue;
        }
        const now = await git(root, ["rev-parse", `refs/heads/${target}^{commit}`]);
        if (now === host && checkout) {
          throw new OutpostError(
            "conflict",
            `Could not bring the checkout at ${checkout} forward to ${next.slice(0, 12)}: ` +
              `${moved.stderr.trim().split("\n")[0]}. Commit or stash its local changes, then run \`git merge ${branch}\` there.`,
            { details: { branch, target, checkout } },
          );
        }
        if (signal?.aborted) break;
      }
      if (blockedBy) {
        throw new OutpostError(
          "conflict",
          `Could not move ${target} to the agent's work: ${await describeIndexLock(blockedBy)}. Its work is kept on ${branch}: then run \`git merge ${branch}\` on ${target}.`,
          { details: { branch, target, lock: blockedBy } },
        );
      }
      throw new OutpostError(
        "conflict",
        `Branch ${target} kept moving while ${branch} was being merged into it. Retry, or run \`git merge ${branch}\` yourself.`,
        { details: { branch, target } },
      );
    },
    { signal, waitMs: 600_000, onWait },
  );
}

async function mergeCommit(
  root: string,
  host: string,
  work: string,
  branch: string,
  target: string,
  identity: GitIdentity,
): Promise<string> {
  const merged = await gitStatus(root, ["merge-tree", "--write-tree", "--name-only", "--no-messages", host, work]);
  if (merged.status === 1) {
    const files = merged.stdout.trim().split("\n").slice(1).filter(Boolean);
    throw new OutpostError(
      "conflict",
      `The agent's branch ${branch} conflicts with ${target}${files.length ? ` in ${files.join(", ")}` : ""}. Its work is kept: resolve with \`git merge ${branch}\` on ${target}.`,
      { details: { branch, target, files } },
    );
  }
  if (merged.status !== 0) {
    throw new OutpostError(
      "workspace",
      `git merge-tree failed (exit ${merged.status}): ${merged.stderr.trim()}. Check the repository with git fsck.`,
      { details: { branch, target } },
    );
  }
  const tree = merged.stdout.split("\n")[0]!.trim();
  return git(root, ["commit-tree", tree, "-p", host, "-p", work, "-m", `Merge branch '${branch}' into ${target}`], {
    config: identityConfig(identity),
  });
}

/** The worktree that has `branch` checked out, if any. Usually the host checkout: read its HEAD file first. */
async function checkoutOf(workspace: Workspace, branch: string): Promise<string | undefined> {
  const head = await readFile(join(workspace.gitDirectory, "HEAD"), "utf8").catch(() => "");
  if (head.trim() === `ref: refs/heads/${branch}`) return workspace.root;
  const list = await git(workspace.root, ["worktree", "list", "--porcelain"]);
  let path: string | undefined;
  for (const line of list.split("\n")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    else if (line === `branch refs/heads/${branch}`) return path;
  }
  return undefined;
}
