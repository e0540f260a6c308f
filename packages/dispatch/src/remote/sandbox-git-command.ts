import { OutpostError, tailLines, type SandboxLease } from "@outpost/core";

/** Configuration every engine git command in a sandbox gets: no hook or fsmonitor the sandbox set runs. */
const SANDBOX_GIT_CONFIG: Readonly<Record<string, string>> = Object.freeze({
  "core.hooksPath": "/dev/null",
  "core.fsmonitor": "false",
});

/** `-c key=value` arguments for git in a sandbox: `extra`, then the engine's configuration, which wins. */
export function sandboxGitConfigArguments(extra: Readonly<Record<string, string>> = {}): string[] {
  return Object.entries({ ...extra, ...SANDBOX_GIT_CONFIG }).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

/**
 * Runs git in a sandbox for the engine's own bookkeeping (remote seed, bundle back, replayed commits). Nothing it prints is
 * trusted beyond what the caller checks. Identity and hooks travel as per-command configuration: the
 * engine never writes a global git config in a sandbox.
 */
export async function sandboxGit(
  lease: SandboxLease,
  args: readonly string[],
  what: string,
  options: { readonly signal?: AbortSignal; readonly config?: Readonly<Record<string, string>>; readonly stdin?: string } = {},
): Promise<string> {
  const config = sandboxGitConfigArguments(options.config);
  const result = await lease.invoke({
    executable: "git",
    arguments: [...config, ...args],
    ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
    directory: lease.root,
    signal: options.signal,
    deadlineMs: 600_000,
    retain: 64 * 1024,
  });
  if (result.status !== 0)
    throw new OutpostError(
      "workspace",
      `Could not ${what} in the sandbox (git exit ${result.status}): ${tailLines(result.stderr || result.stdout, 500)}. Check that git is installed in the sandbox image.`,
      { details: { status: result.status } },
    );
  return result.stdout.trim();
}

/** A full object id, or nothing: sandbox output is hostile. */
export function objectId(text: string): string | undefined {
  return /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text) ? text : undefined;
}
