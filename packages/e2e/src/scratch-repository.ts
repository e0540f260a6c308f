import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const IDENTITY = ["-c", "user.name=Outpost Test", "-c", "user.email=test@outpost.invalid"];

/** Runs git in `directory` with a per-command identity; returns trimmed stdout. */
export function gitIn(directory: string, ...args: string[]): string {
  return execFileSync("git", [...IDENTITY, ...args], { cwd: directory, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A fresh git checkout on branch `main` with one commit (README.md), under the system temp dir. */
export function scratchRepository(prefix = "outpost-repo-"): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  gitIn(directory, "init", "--quiet", "--initial-branch=main");
  writeFileSync(join(directory, "README.md"), "# scratch\n");
  gitIn(directory, "add", "README.md");
  gitIn(directory, "commit", "--quiet", "-m", "initial commit");
  return directory;
}
