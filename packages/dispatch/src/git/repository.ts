import { stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { OutpostError } from "@outpost/core";
import { git, gitScript, gitStatus, type GitResult } from "./run-git.js";
import { FALLBACK_IDENTITY, IDENTITY_QUERY, parseIdentity, resolveIdentity, type GitIdentity } from "./git-identity.js";
import { shellQuote } from "../process/shell-quote.js";

/** The host checkout Outpost works from. */
export interface Repository {
  /** Root of the checkout (`git rev-parse --show-toplevel`). */
  readonly root: string;
  /** The common git directory shared by every worktree of the checkout. */
  readonly commonDirectory: string;
  /** The checkout's own git directory (differs from the common one in a linked worktree). */
  readonly gitDirectory: string;
  /** HEAD when it was found: its commit and what it points at (`refs/heads/<branch>`, or `HEAD` when detached). */
  readonly head?: { readonly commit: string; readonly reference: string };
}

/** Finds the checkout root containing `path`; an unusable directory is code `workspace`. */
export async function findRepository(path: string): Promise<Repository> {
  const absolute = await checkoutDirectory(path);
  // HEAD comes along in the same process; an unborn HEAD makes it fail, so then ask again without it.
  const withHead = await gitStatus(absolute, [...LOCATIONS, ...HEAD_QUERY]);
  return repositoryFrom(absolute, withHead.status === 0 ? withHead : await gitStatus(absolute, LOCATIONS), withHead.status === 0);
}

/**
 * findRepository and the identity git would use there (resolveIdentity), answered by one host process: a
 * shell running both git commands, hardened alike, so a dispatch pays one spawn before its worktree.
 */
export async function findRepositoryWithIdentity(path: string): Promise<{ repository: Repository; identity: GitIdentity }> {
  const absolute = await checkoutDirectory(path);
  const script = `git "$@" ${IDENTITY_QUERY.map(shellQuote).join(" ")}\nprintf '\\0${SEPARATOR}\\0'\nexec git "$@" ${[...LOCATIONS, ...HEAD_QUERY].map(shellQuote).join(" ")}`;
  const both = await gitScript(absolute, script, { what: "git rev-parse" });
  const at = both.stdout.indexOf(`\0${SEPARATOR}\0`);
  // No separator: the shell itself failed; an unborn HEAD: ask again without it (both rare, both as before).
  if (at === -1 || both.status !== 0) {
    const [repository, identity] = await Promise.all([findRepository(absolute), resolveIdentity(absolute).catch(() => FALLBACK_IDENTITY)]);
    return { repository, identity };
  }
  const identity = parseIdentity(both.stdout.slice(0, at));
  const located = { ...both, stdout: both.stdout.slice(at + SEPARATOR.length + 2) };
  return { repository: repositoryFrom(absolute, located, true), identity };
}

const LOCATIONS = ["rev-parse", "--show-toplevel", "--git-common-dir", "--absolute-git-dir"];
const HEAD_QUERY = ["HEAD^{commit}", "--symbolic-full-name", "HEAD", "--"];
const SEPARATOR = "@outpost-probe@";

async function checkoutDirectory(path: string): Promise<string> {
  const absolute = resolve(path);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new OutpostError(
      "workspace",
      `Repository directory ${absolute} does not exist or is not a directory. Pass an existing path inside a git checkout as repository.`,
      { details: { repository: absolute } },
    );
  }
  return absolute;
}

function repositoryFrom(absolute: string, result: GitResult, withHead: boolean): Repository {
  if (result.status !== 0) {
    throw new OutpostError(
      "workspace",
      `${absolute} is not inside a git checkout (${result.stderr.trim()}). Run \`git init\` there or pass the path of a checkout as repository.`,
      { details: { repository: absolute } },
    );
  }
  const [root, common, gitDirectory, commit, reference] = result.stdout.trim().split("\n");
  if (!root || !common || !gitDirectory) {
    throw new OutpostError(
      "workspace",
      `${absolute} is a bare repository or has no work tree. Pass the path of a checkout with a work tree as repository.`,
      { details: { repository: absolute } },
    );
  }
  return {
    root,
    commonDirectory: isAbsolute(common) ? common : resolve(absolute, common),
    gitDirectory,
    ...(withHead && commit && reference ? { head: { commit, reference } } : {}),
  };
}

/** The commit HEAD points at; an unborn branch is code `workspace`. */
export async function headCommit(directory: string): Promise<string> {
  const result = await gitStatus(directory, ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
  if (result.status !== 0) {
    throw new OutpostError("workspace", `The checkout at ${directory} has no commit yet. Make a first commit, then dispatch again.`, {
      details: { directory },
    });
  }
  return result.stdout.trim();
}

/** The branch checked out in `directory`, or undefined on a detached HEAD. */
export async function currentBranch(directory: string): Promise<string | undefined> {
  const result = await gitStatus(directory, ["symbolic-ref", "--quiet", "--short", "HEAD"]);
  return result.status === 0 ? result.stdout.trim() : undefined;
}

/** Commits reachable from HEAD of `directory` and not from `baseline`, oldest first. */
export async function commitsSince(directory: string, baseline: string, signal?: AbortSignal): Promise<string[]> {
  const out = await git(directory, ["rev-list", "--reverse", `${baseline}..HEAD`], { signal });
  return out === "" ? [] : out.split("\n");
}

/** True when `branch` names an existing local branch. */
export async function branchExists(directory: string, branch: string): Promise<boolean> {
  const result = await gitStatus(directory, ["show-ref", "--verify", "--quiet", `refs/heads/${branch}`]);
  return result.status === 0;
}

/** Refuses names git would not accept as a branch (code `configuration`). */
export async function assertBranchName(directory: string, branch: string): Promise<void> {
  const result = await gitStatus(directory, ["check-ref-format", "--branch", branch]);
  if (result.status !== 0 || branch.startsWith("-")) refuseBranchName(branch);
}

/**
 * Checks a given branch name (as `assertBranchName`) and says whether the branch exists, in one host process.
 */
export async function checkNewBranchName(directory: string, branch: string): Promise<{ readonly exists: boolean }> {
  if (branch.startsWith("-")) refuseBranchName(branch);
  const script = [
    `git "$@" check-ref-format --branch ${shellQuote(branch)} >/dev/null 2>&1 </dev/null || exit 3`,
    `git "$@" show-ref --verify --quiet ${shellQuote(`refs/heads/${branch}`)} </dev/null`,
  ].join("\n");
  const result = await gitScript(directory, script, { what: "git check-ref-format" });
  if (result.status === 3) refuseBranchName(branch);
  return { exists: result.status === 0 };
}

function refuseBranchName(branch: string): never {
  throw new OutpostError("configuration", `${JSON.stringify(branch)} is not a valid branch name. Use a name such as "outpost/fix-login".`, {
    details: { branch },
  });
}
