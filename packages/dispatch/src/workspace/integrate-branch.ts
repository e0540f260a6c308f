import { OutpostError } from "@outpost/core";
import type { Workspace } from "./workspace.js";
import { git, gitStatus } from "../git/run-git.js";
import { identityConfig, type GitIdentity } from "../git/git-identity.js";
import { withFileLock } from "./file-lock.js";
import { lockPath } from "./outpost-directory.js";

export interface Integration {
  /** The target branch tip after integration. */
  readonly commit: string;
  readonly kind: "fast-forward" | "merge" | "up-to-date";
}

/**
 * Merges the workspace branch into its target without switching any checkout: the merge is computed
 * in the object store (merge-tree + commit-tree), the ref moves with a compare-and-swap, and a checkout
 * that has the target checked out is carried forward like a fast-forward. Serialized per repository.
 * A content conflict is code `conflict`; the branch and worktree are left untouched.
 */
export async function integrateBranch(workspace: Workspace, identity: GitIdentity, signal?: AbortSignal): Promise<Integration> {
  const { root, branch, target } = workspace;
  if (!branch || !target) throw new OutpostError("configuration", "integrateBranch needs an integrate workspace with a branch and a target.");
  return withFileLock(lockPath(root, "integrate"), async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const work = await git(root, ["rev-parse", "--verify", `refs/heads/${branch}^{commit}`]);
      const host = await git(root, ["rev-parse", "--verify", `refs/heads/${target}^{commit}`]);
      if (await isAncestor(root, work, host)) return { commit: host, kind: "up-to-date" };
      const fastForward = await isAncestor(root, host, work);
      const next = fastForward ? work : await mergeCommit(root, host, work, branch, target, identity);
      const checkout = await checkoutOf(root, target);
      if (checkout && !(await carryCheckout(checkout, host, next))) {
        throw new OutpostError("conflict", `Could not carry the checkout at ${checkout} from ${host.slice(0, 12)} to ${next.slice(0, 12)}: it has local changes to files the agent changed. Commit or stash them there, then run \`git merge ${branch}\`.`, { details: { branch, target, checkout } });
      }
      const moved = await gitStatus(root, ["update-ref", "-m", `outpost: integrate ${branch}`, `refs/heads/${target}`, next, host]);
      if (moved.status === 0) return { commit: next, kind: fastForward ? "fast-forward" : "merge" };
      // Someone moved the target between our read and our swap: undo the checkout step and retry.
      if (checkout) await carryCheckout(checkout, next, host);
      if (signal?.aborted) break;
    }
    throw new OutpostError("conflict", `Branch ${target} kept moving while ${branch} was being merged into it. Retry, or run \`git merge ${branch}\` yourself.`, { details: { branch, target } });
  }, { signal, waitMs: 600_000 });
}

async function isAncestor(root: string, ancestor: string, descendant: string): Promise<boolean> {
  return (await gitStatus(root, ["merge-base", "--is-ancestor", ancestor, descendant])).status === 0;
}

async function mergeCommit(root: string, host: string, work: string, branch: string, target: string, identity: GitIdentity): Promise<string> {
  const merged = await gitStatus(root, ["merge-tree", "--write-tree", "--name-only", "--no-messages", host, work]);
  if (merged.status === 1) {
    const files = merged.stdout.trim().split("\n").slice(1).filter(Boolean);
    throw new OutpostError("conflict", `The agent's branch ${branch} conflicts with ${target}${files.length ? ` in ${files.join(", ")}` : ""}. Its work is kept: resolve with \`git merge ${branch}\` on ${target}.`, { details: { branch, target, files } });
  }
  if (merged.status !== 0) {
    throw new OutpostError("workspace", `git merge-tree failed (exit ${merged.status}): ${merged.stderr.trim()}. Check the repository with git fsck.`, { details: { branch, target } });
  }
  const tree = merged.stdout.split("\n")[0]!.trim();
  return git(root, ["commit-tree", tree, "-p", host, "-p", work, "-m", `Merge branch '${branch}' into ${target}`], { config: identityConfig(identity) });
}

/** The worktree that has `branch` checked out, if any. */
async function checkoutOf(root: string, branch: string): Promise<string | undefined> {
  const list = await git(root, ["worktree", "list", "--porcelain"]);
  let path: string | undefined;
  for (const line of list.split("\n")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    else if (line === `branch refs/heads/${branch}`) return path;
  }
  return undefined;
}

/** Two-tree read-tree: moves index and files from `from` to `to`, keeping unrelated local changes. */
async function carryCheckout(checkout: string, from: string, to: string): Promise<boolean> {
  await gitStatus(checkout, ["update-index", "-q", "--refresh"]);
  return (await gitStatus(checkout, ["read-tree", "-m", "-u", from, to])).status === 0;
}
