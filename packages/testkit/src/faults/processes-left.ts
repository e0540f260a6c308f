import type { SandboxContext, SandboxProvider } from "@outpost/core";

/** The pids of host processes whose environment holds `variable=value` (e.g. plugin-utils' `markedProcesses`). */
export type MarkedPids = (variable: string, value: string) => number[];

/**
 * For an API double that runs real processes on this machine: a command leaves a background child and one
 * in a new session (setsid), the lease is released, and the processes carrying the double's mark are
 * listed before and after. After release none may be left, as none survives the platform's VM.
 */
export async function processesLeftAfterRelease(
  provider: SandboxProvider,
  context: SandboxContext,
  variable: string,
  marked: MarkedPids,
): Promise<{ readonly before: readonly number[]; readonly after: readonly number[] }> {
  const lease = await provider.acquire(context);
  let seen: { readonly value: string; readonly before: readonly number[] };
  try {
    const started = await lease.invoke({
      executable: "sh",
      arguments: [
        "-c",
        `(sleep 300 </dev/null >/dev/null 2>&1 &); setsid sh -c 'sleep 300' </dev/null >/dev/null 2>&1 & printf %s "$${variable}"`,
      ],
    });
    // The mark as the command saw it.
    const value = started.stdout.trim();
    if (value === "") throw new Error(`The sandbox's commands do not carry ${variable}: the double cannot find its processes.`);
    seen = { value, before: marked(variable, value) };
  } finally {
    await lease.release();
  }
  return { before: seen.before, after: marked(variable, seen.value) };
}
