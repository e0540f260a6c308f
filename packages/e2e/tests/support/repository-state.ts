import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A fingerprint of what a replay must never touch when it fails: the branch HEAD names and its commit, every ref,
 * the index's tree, and the work tree's content (tracked and untracked files, hashed through a private index).
 */
export function repositoryState(repository: string): Record<string, string> {
  const git = (args: string[], variables: Record<string, string> = {}): string =>
    execFileSync("git", args, { cwd: repository, encoding: "utf8", env: { ...process.env, ...variables } }).trim();
  const scratch = mkdtempSync(join(tmpdir(), "outpost-state-"));
  try {
    const index = { GIT_INDEX_FILE: join(scratch, "index") };
    git(["add", "-A", "."], index);
    return {
      branch: git(["symbolic-ref", "-q", "HEAD"]),
      head: git(["rev-parse", "HEAD"]),
      refs: git(["for-each-ref", "--format=%(refname) %(objectname)"]),
      index: git(["write-tree"]),
      workTree: git(["write-tree"], index),
      status: git(["status", "--porcelain=v1", "--untracked-files=all"]),
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
