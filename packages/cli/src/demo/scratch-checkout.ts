import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The demo's one temporary folder: a git checkout on `main` with one commit, and a conversation home beside it. */
export interface ScratchCheckout {
  /** Removed whole at the end of the demo (unless --keep). */
  readonly root: string;
  readonly repository: string;
  readonly conversationHome: string;
}

export function scratchCheckout(): ScratchCheckout {
  const root = mkdtempSync(join(tmpdir(), "outpost-demo-"));
  const repository = join(root, "repository");
  const conversationHome = join(root, "conversations");
  mkdirSync(repository);
  mkdirSync(conversationHome);
  const git = (...args: string[]): string =>
    execFileSync("git", args, { cwd: repository, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
  git("init", "--quiet", "--initial-branch=main");
  // A local identity: the agent commits inside the sandbox, where no global git identity may exist.
  git("config", "user.name", "Outpost Demo");
  git("config", "user.email", "demo@outpost.invalid");
  writeFileSync(join(repository, "README.md"), "# scratch\n");
  git("add", "README.md");
  git("commit", "--quiet", "-m", "initial commit");
  return { root, repository, conversationHome };
}

/** `git log --oneline` of the demo's checkout, for the summary. */
export function lastCommit(repository: string): string {
  return execFileSync("git", ["log", "-1", "--format=%h %s"], { cwd: repository, encoding: "utf8" }).trim();
}
