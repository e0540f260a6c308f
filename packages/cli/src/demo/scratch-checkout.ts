import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";

/** The demo's one temporary folder: a git checkout on `main` with one commit, and a conversation home beside it. */
export interface ScratchCheckout {
  /** Removed whole at the end of the demo (unless --keep). */
  readonly root: string;
  readonly repository: string;
  readonly conversationHome: string;
}

/** Git on the host goes through the engine's hardened runner, as everywhere else (dispatch's hardened-git test). */
async function git(repository: string, ...args: string[]): Promise<string> {
  const { hardenedGit } = await import("@outpost/dispatch");
  const result = await hardenedGit(repository, args);
  if (result.status !== 0)
    throw new OutpostError(
      "workspace",
      `git ${args[0]} failed in the demo's scratch checkout ${repository}: ${result.stderr.trim()}. Check that git is installed.`,
    );
  return result.stdout.trim();
}

export async function scratchCheckout(): Promise<ScratchCheckout> {
  const root = mkdtempSync(join(tmpdir(), "outpost-demo-"));
  const repository = join(root, "repository");
  const conversationHome = join(root, "conversations");
  mkdirSync(repository);
  mkdirSync(conversationHome);
  await git(repository, "init", "--quiet", "--initial-branch=main");
  // A local identity: the agent commits inside the sandbox, where no global git identity may exist.
  await git(repository, "config", "user.name", "Outpost Demo");
  await git(repository, "config", "user.email", "demo@outpost.invalid");
  writeFileSync(join(repository, "README.md"), "# scratch\n");
  await git(repository, "add", "README.md");
  await git(repository, "commit", "--quiet", "-m", "initial commit");
  return { root, repository, conversationHome };
}

/** The newest commit of the demo's checkout, for the summary. */
export function lastCommit(repository: string): Promise<string> {
  return git(repository, "log", "-1", "--format=%h %s");
}
