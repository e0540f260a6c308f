import { join } from "node:path";
import { stat } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import type { BranchPolicy } from "./branch-policy.js";
import type { Workspace } from "./workspace.js";
import { assertBranchName, checkNewBranchName, currentBranch, headCommit, type Repository } from "../git/repository.js";
import { gitScript, gitStatus, type GitResult } from "../git/run-git.js";
import { shellQuote } from "../process/shell-quote.js";
import { withFileLock } from "./file-lock.js";
import { ensureOutpostDirectory, lockPath } from "./outpost-directory.js";
import { slug } from "./slug.js";

export interface OpenWorkspaceInput {
  readonly repository: Repository;
  readonly policy: BranchPolicy;
  readonly dispatchId: string;
  readonly label?: string;
  readonly signal?: AbortSignal;
  /**
   * Told the worktree and branch about to be made, and awaited before `git worktree add` starts: a kill during it
   * then leaves a record naming them, so `outpost clean` finds what it half made.
   */
  readonly onPlan?: (plan: WorkspacePlan) => Promise<void>;
}

/** A worktree this dispatch is about to create, and whether the branch is new. */
export interface WorkspacePlan {
  readonly directory: string;
  readonly branch: string;
  readonly branchCreated: boolean;
}

/** Prepares the directory and branch the agent works on, following the branch policy. Copies come after. */
export async function openWorkspace(input: OpenWorkspaceInput): Promise<Workspace> {
  const { repository, policy } = input;
  const root = repository.root;
  if (policy.mode === "current") {
    const head = repository.head;
    return {
      mode: "current",
      root,
      commonDirectory: repository.commonDirectory,
      gitDirectory: repository.gitDirectory,
      directory: root,
      branch: head ? branchOf(head.reference) : await currentBranch(root),
      baseline: head?.commit ?? (await headCommit(root)),
      created: false,
      untrackedCopies: [],
    };
  }
  await ensureOutpostDirectory(root);
  if (policy.mode === "named") {
    // HEAD as found with the repository (a checkout without a commit cannot branch).
    if (repository.head === undefined) await headCommit(root);
    const directory = join(root, ".outpost", "workspaces", slug(policy.name, 80) || "branch");
    const existing = await reusableWorktree(directory, policy.name);
    // One process checks the name and finds the branch; a reused worktree only needs the name checked.
    const exists = existing ? (await assertBranchName(root, policy.name), true) : (await checkNewBranchName(root, policy.name)).exists;
    if (!exists && policy.base !== undefined) await assertBase(root, policy.base);
    const args = exists ? [directory, policy.name] : ["-b", policy.name, directory, policy.base ?? "HEAD"];
    if (!existing) await input.onPlan?.({ directory, branch: policy.name, branchCreated: !exists });
    const added = existing ? undefined : await addWorktree(root, args, input.signal, directory);
    return {
      mode: "named",
      root,
      commonDirectory: repository.commonDirectory,
      gitDirectory: repository.gitDirectory,
      directory,
      branch: policy.name,
      baseline: added ?? (await headCommit(directory)),
      created: !existing,
      branchCreated: !exists,
      untrackedCopies: [],
    };
  }
  // The target's tip: HEAD as found with the repository, unless another target is named.
  const tip =
    policy.target === undefined
      ? repository.head
        ? { status: 0, stdout: `${repository.head.commit}\n${repository.head.reference}` }
        : { status: 1, stdout: "" }
      : await gitStatus(root, ["rev-parse", "--verify", "--quiet", `refs/heads/${policy.target}^{commit}`]);
  const [baseline = "", reference = ""] = tip.stdout.trim().split("\n");
  const target = policy.target ?? branchOf(reference);
  if (tip.status !== 0 && policy.target === undefined) {
    throw new OutpostError("workspace", `The checkout at ${root} has no commit yet. Make a first commit, then dispatch again.`, {
      details: { directory: root },
    });
  }
  if (target === undefined) {
    throw new OutpostError(
      "configuration",
      `The checkout at ${root} is on a detached HEAD, so there is no branch to integrate into. Check out a branch or pass branch: { mode: "integrate", target: "<branch>" }.`,
    );
  }
  if (tip.status !== 0) {
    throw new OutpostError(
      "configuration",
      `Integration target branch ${JSON.stringify(target)} does not exist or has no commit. Create it or pass an existing branch as target.`,
      { details: { target } },
    );
  }
  // A generated name is valid and unique by construction; a given one is checked.
  const branch = policy.name ?? `outpost/${slug(input.label ?? "") || "dispatch"}-${input.dispatchId.slice(0, 8)}`;
  if (policy.name !== undefined && (await checkNewBranchName(root, branch)).exists) {
    throw new OutpostError(
      "configuration",
      `Branch ${JSON.stringify(branch)} already exists; integrate needs a fresh branch per dispatch. Delete it or choose another name.`,
      { details: { branch } },
    );
  }
  const directory = join(root, ".outpost", "workspaces", input.dispatchId);
  await input.onPlan?.({ directory, branch, branchCreated: true });
  await addWorktree(root, ["-b", branch, directory, baseline], input.signal);
  return {
    mode: "integrate",
    root,
    commonDirectory: repository.commonDirectory,
    gitDirectory: repository.gitDirectory,
    directory,
    branch,
    target,
    baseline,
    created: true,
    branchCreated: true,
    untrackedCopies: [],
  };
}

// Concurrent `git worktree add` calls race on the shared worktree administration files.
// A worktree directory deleted by hand stays registered (and its branch "checked out") until pruned.
// With `headOf` (the new worktree), the same process reads the commit checked out there, and it is returned.
async function addWorktree(root: string, args: readonly string[], signal?: AbortSignal, headOf?: string): Promise<string | undefined> {
  const add = (): Promise<GitResult> =>
    headOf === undefined
      ? gitStatus(root, ["worktree", "add", "--quiet", ...args])
      : gitScript(
          root,
          `git "$@" worktree add --quiet ${args.map(shellQuote).join(" ")} </dev/null || exit\n` +
            `git "$@" -C ${shellQuote(headOf)} rev-parse --verify --quiet 'HEAD^{commit}' </dev/null || exit 125`,
          { what: "git worktree add" },
        );
  return withFileLock(
    lockPath(root, "worktrees"),
    async () => {
      let added = await add();
      if (added.status !== 0 && /missing but (already )?registered|is already (checked out|used by worktree)/.test(added.stderr)) {
        await gitStatus(root, ["worktree", "prune"]);
        added = await add();
      }
      if (added.status === 0) return headOf === undefined ? undefined : added.stdout.trim();
      throw new OutpostError(
        "workspace",
        `git worktree add failed in ${root}: ${added.stderr.trim() || `exit ${added.status}`}. Check \`git worktree list\` and remove stale worktrees.`,
        { details: { arguments: [...args] } },
      );
    },
    { signal },
  );
}

/** A managed worktree left by an earlier named dispatch, still on the same branch, is reused. */
async function reusableWorktree(directory: string, branch: string): Promise<boolean> {
  const info = await stat(directory).catch(() => undefined);
  if (!info) return false;
  const checkedOut = await gitStatus(directory, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
  if (checkedOut.status === 0 && checkedOut.stdout.trim() === branch) return true;
  throw new OutpostError(
    "workspace",
    `${directory} exists but is not a worktree on branch ${branch}. Remove it (git worktree remove) or choose another branch name.`,
    { details: { directory, branch } },
  );
}

/** A named branch's `base` must name a commit: a typo is the caller's to fix, not a stale worktree. */
async function assertBase(root: string, base: string): Promise<void> {
  const found = base.startsWith("-")
    ? undefined
    : await gitStatus(root, ["rev-parse", "--verify", "--quiet", "--end-of-options", `${base}^{commit}`]);
  if (found?.status === 0) return;
  throw new OutpostError(
    "configuration",
    `The base ${JSON.stringify(base)} of the named branch is not a commit, branch or tag of ${root}. Pass an existing ref as branch.base, or leave it out to start from HEAD.`,
    { details: { base } },
  );
}

function branchOf(reference: string): string | undefined {
  return reference.startsWith("refs/heads/") ? reference.slice("refs/heads/".length) : undefined;
}
