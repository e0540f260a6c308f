import { OutpostError, tailLines, type SandboxLease } from "@outpost/core";
import { hookInvocation, type HookCommand } from "./lifecycle-hooks.js";
import { runHostProcess } from "../process/run-host-process.js";
import { DISPATCH_ID_VARIABLE } from "../activity/activity-record.js";

export type HookPhase = "workspaceReady" | "hostReady" | "sandboxReady";

/**
 * Runs host hooks one after the other in `directory`; the first failure stops the rest. With `dispatchId`,
 * each carries `OUTPOST_DISPATCH_ID` like the agent's processes, so a clean after a crash finds and stops it.
 */
export async function runHostHooks(
  phase: HookPhase,
  hooks: readonly HookCommand[],
  directory: string,
  signal?: AbortSignal,
  dispatchId?: string,
): Promise<void> {
  for (const hook of hooks) {
    const run = hookInvocation(hook);
    const result = await runHostProcess({
      executable: run.executable,
      arguments: run.arguments,
      variables: dispatchId === undefined ? run.variables : { ...run.variables, [DISPATCH_ID_VARIABLE]: dispatchId },
      directory,
      deadlineMs: run.deadlineMs,
      signal,
      what: `The ${phase} hook \`${run.text}\``,
    });
    if (result.status !== 0) throw hookFailed(phase, run.text, result.status, result.stderr || result.stdout);
  }
}

/** Runs sandbox hooks all together in the lease root; fails with the first failure. `dispatchId`: as for host hooks. */
export async function runSandboxHooks(
  hooks: readonly HookCommand[],
  lease: SandboxLease,
  signal?: AbortSignal,
  dispatchId?: string,
): Promise<void> {
  await Promise.all(
    hooks.map(async (hook) => {
      const run = hookInvocation(hook);
      const result = await lease.invoke({
        executable: run.executable,
        arguments: run.arguments,
        variables: dispatchId === undefined ? run.variables : { ...run.variables, [DISPATCH_ID_VARIABLE]: dispatchId },
        deadlineMs: run.deadlineMs,
        signal,
        retain: 16 * 1024,
      });
      if (result.status !== 0) throw hookFailed("sandboxReady", run.text, result.status, result.stderr || result.stdout);
    }),
  );
}

function hookFailed(phase: HookPhase, text: string, status: number, output: string): OutpostError {
  return new OutpostError(
    "process",
    `The ${phase} hook \`${text}\` exited with ${status}: ${tailLines(output, 500)}. Fix the hook so it exits 0, or remove it.`,
    { details: { phase, hook: text, status } },
  );
}
