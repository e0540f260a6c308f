import { OutpostError } from "@outpost/core";
import { runHostProcess } from "../process/run-host-process.js";
import { describeIndexLock, indexLockIn } from "./index-lock.js";
import { HARDENED_GIT_VARIABLES, hardenedConfigArguments } from "./hardened-git.js";

export interface GitOptions {
  /** Extra per-command configuration (`-c key=value`); Outpost never writes a git config file. */
  readonly config?: Readonly<Record<string, string>>;
  readonly stdin?: string;
  readonly variables?: Readonly<Record<string, string | undefined>>;
  readonly deadlineMs?: number;
  readonly signal?: AbortSignal;
}

export interface GitResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs git in `directory`, hardened (see hardened-git.ts): no hook, fsmonitor or external program from
 * repository configuration runs, whatever a sandbox wrote. Resolves whatever the exit status.
 */
export async function gitStatus(directory: string, args: readonly string[], options: GitOptions = {}): Promise<GitResult> {
  return runHostProcess({
    executable: "git",
    arguments: [...hardenedConfigArguments(options.config), ...args],
    directory,
    variables: { ...HARDENED_GIT_VARIABLES, ...options.variables },
    stdin: options.stdin,
    deadlineMs: options.deadlineMs,
    signal: options.signal,
    what: `git ${args[0] ?? ""}`.trim(),
  });
}

/**
 * Runs an sh `script` in `directory` whose git commands are written `git "$@" <args>`: "$@" holds the
 * hardened configuration, and the environment is hardened as for `gitStatus`. Several git commands cost
 * one spawn from Node (the dearest part of a short git call) instead of one each.
 */
export async function gitScript(
  directory: string,
  script: string,
  options: { readonly what: string; readonly variables?: Readonly<Record<string, string>>; readonly signal?: AbortSignal },
): Promise<GitResult> {
  return runHostProcess({
    executable: "sh",
    arguments: ["-c", script, "outpost-git", ...hardenedConfigArguments(undefined)],
    directory,
    variables: { ...HARDENED_GIT_VARIABLES, ...options.variables },
    signal: options.signal,
    what: options.what,
  });
}

/** Runs git in `directory` and returns its trimmed stdout; a non-zero exit is code `workspace`. */
export async function git(directory: string, args: readonly string[], options: GitOptions = {}): Promise<string> {
  const result = await gitStatus(directory, args, options);
  if (result.status !== 0) {
    const lock = indexLockIn(result.stderr);
    throw new OutpostError(
      "workspace",
      `git ${args.join(" ")} failed in ${directory} (exit ${result.status}): ` +
        `${lock ? `${await describeIndexLock(lock)}, then retry` : `${result.stderr.trim() || result.stdout.trim()}. Check the repository state and retry`}.`,
      { details: { directory, arguments: [...args], status: result.status } },
    );
  }
  return result.stdout.replace(/\n$/, "");
}
