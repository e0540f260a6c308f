import { OutpostError } from "@outpost/core";
import { runHostProcess } from "../process/run-host-process.js";
import { describeIndexLock, indexLockIn } from "./index-lock.js";

export interface GitOptions {
  /** Extra per-command configuration (`-c key=value`); Outpost never writes a git config file. */
  readonly config?: Readonly<Record<string, string>>;
  readonly stdin?: string;
  readonly variables?: Readonly<Record<string, string>>;
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
}

export interface GitResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

// Stable, non-interactive output whatever the user's locale or terminal.
const GIT_VARIABLES = { LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", GIT_OPTIONAL_LOCKS: "0" };

/** Runs git in `directory`; resolves whatever the exit status. */
export async function gitStatus(directory: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  const config = Object.entries(options.config ?? {}).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
  return runHostProcess({
    executable: "git",
    arguments: [...config, ...args],
    directory,
    variables: { ...GIT_VARIABLES, ...options.variables },
    stdin: options.stdin,
    deadlineMs: options.deadlineMs,
    signal: options.signal,
    what: `git ${args[0] ?? ""}`.trim(),
  });
}

/** Runs git in `directory` and returns its trimmed stdout; a non-zero exit is code `workspace`. */
export async function git(directory: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await gitStatus(directory, args, options);
  if (result.status !== 0) {
    const lock = indexLockIn(result.stderr);
    throw new OutpostError(
      "workspace",
      `git ${args.join(" ")} failed in ${directory} (exit ${result.status}): ${lock ? `${await describeIndexLock(lock)}, then retry` : `${result.stderr.trim() || result.stdout.trim()}. Check the repository state and retry`}.`,
      { details: { directory, arguments: [...args], status: result.status } },
    );
  }
  return result.stdout.replace(/\n$/, "");
}
