import assert from "node:assert/strict";
import type { Command, CommandResult, SandboxLease } from "@outpost/core";

/** Runs a POSIX sh script in the sandbox; `$1…` are `parameters`. Only busybox-level tools may be used. */
export function shell(
  lease: SandboxLease,
  script: string,
  parameters: readonly string[] = [],
  extra: Omit<Command, "executable" | "arguments"> = {},
): Promise<CommandResult> {
  return lease.invoke({ executable: "sh", arguments: ["-c", script, "sh", ...parameters], deadlineMs: 30_000, ...extra });
}

/** Like `shell`, but the script must exit 0; returns its stdout. */
export async function shellOk(lease: SandboxLease, script: string, parameters: readonly string[] = []): Promise<string> {
  const result = await shell(lease, script, parameters);
  assert.equal(result.status, 0, `sandbox script failed with status ${result.status}: ${script}\nstderr: ${result.stderr}`);
  return result.stdout;
}

/** Single-quotes a value for sh. */
export function quote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/**
 * Pids among `pids` that still run in the sandbox (`kill -0`); a zombie counts as ended because only its
 * exit status is left for a parent to collect.
 */
export async function survivors(lease: SandboxLease, pids: readonly string[]): Promise<string[]> {
  const stdout = await shellOk(
    lease,
    `for p in "$@"; do
       if kill -0 "$p" 2>/dev/null; then
         state=""
         if [ -r /proc/$p/stat ] && read -r line < /proc/$p/stat 2>/dev/null; then
           state=\${line##*) }; state=\${state%% *}
         fi
         [ "$state" = Z ] || echo "$p"
       fi
     done`,
    pids,
  );
  return stdout.split("\n").filter((line) => line !== "");
}
