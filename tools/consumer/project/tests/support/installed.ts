import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The scratch project the tarballs were installed into (outside the repository). */
export const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const NODE_MODULES = join(PROJECT, "node_modules");
/** Where npm linked the installed bins: the pinned agent CLIs and `outpost`. */
export const BIN = join(NODE_MODULES, ".bin");
export const OUTPOST = join(BIN, "outpost");

const require = createRequire(import.meta.url);

/** Absolute path of an installed CLI's bin (the real file, so it also runs where only node_modules is mounted). */
export function cliBinary(name: string): string {
  return join(BIN, name);
}

/** Why `executable` cannot run here, or undefined when it is installed in the scratch project. */
export function missingCli(executable: string): string | undefined {
  return existsSync(join(BIN, executable)) ? undefined : `${executable} is not installed in ${BIN}`;
}

export function pathWithClis(path = process.env["PATH"] ?? "/usr/bin:/bin"): string {
  return `${BIN}${delimiter}${path}`;
}

/** The installed claude executable as its package names it. */
export function claudeExecutable(): string {
  const manifest = require.resolve("@anthropic-ai/claude-code/package.json");
  return join(dirname(manifest), (require(manifest) as { bin: { claude: string } }).bin.claude);
}

export function git(directory: string, ...args: string[]): string {
  const identity = ["-c", "user.name=Consumer Test", "-c", "user.email=consumer@outpost.invalid"];
  return execFileSync("git", [...identity, ...args], { cwd: directory, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();
}

/** A fresh checkout on `main` with one commit, under the system temp dir. */
export function scratchRepository(prefix = "outpost-consumer-repo-"): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  git(directory, "init", "--quiet", "--initial-branch=main");
  writeFileSync(join(directory, "README.md"), "# scratch\n");
  git(directory, "add", "README.md");
  git(directory, "commit", "--quiet", "-m", "initial commit");
  return directory;
}

export interface OutpostRun {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the installed `outpost` bin to its end. */
export function outpost(args: readonly string[], options: { cwd: string; env?: Record<string, string> }): Promise<OutpostRun> {
  return new Promise((done) => {
    const child = spawn(OUTPOST, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (status) => done({ status, stdout, stderr }));
  });
}

/** The JSON lines of an `outpost … --json` run. */
export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
