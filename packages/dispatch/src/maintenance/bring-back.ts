import type { SandboxLease } from "@outpost/core";
import type { ActivityRecord } from "../activity/activity-record.js";
import { bringBackSandboxWork } from "./bring-back-sandbox-work.js";
import { rewriteRecord } from "./rewrite-record.js";
import type { SandboxReopener } from "./sandbox-reopener.js";

/** The outcome of bringing a dead dispatch's sandbox work back: done (the record now says so), or why the sandbox stays. */
export type BringBackOutcome =
  { readonly left?: undefined; readonly action: string; readonly record: ActivityRecord } | { readonly left: string };

/**
 * Before a dead dispatch's isolated or cloud sandbox is removed: reopens it and brings its work home. Done, the
 * record says the dispatch ended (so no later clean brings it back twice) and the sandbox may go; otherwise why
 * it must stay.
 */
export async function bringBack(
  root: string,
  record: ActivityRecord,
  sandbox: string,
  reopen: SandboxReopener | undefined,
): Promise<BringBackOutcome> {
  const name = `${record.provider} sandbox ${sandbox.slice(0, 12)}`;
  const how = `clean again once it can be reached, or drop it with \`outpost clean --discard ${record.dispatchId}\``;
  if (!reopen) return { left: `${name} may still hold commits and no way to reopen it was given; it was left in place` };
  let lease: SandboxLease | undefined;
  try {
    lease = await reopen(sandbox, record.provider, record.sandboxRoot);
  } catch (error) {
    return { left: `${name} may still hold commits and could not be reopened (${message(error)}); it was left in place: ${how}` };
  }
  if (!lease)
    return {
      left:
        `${name} may still hold commits and provider ${record.provider} cannot reopen sandboxes; it was left in place: ` +
        `bring the commits back with the provider's own tools, or drop them with \`outpost clean --discard ${record.dispatchId}\``,
    };
  try {
    const brought = await bringBackSandboxWork(root, record, lease);
    // Said at once: a later clean must not bring the same work back twice, even if the removal below fails.
    const settled: ActivityRecord = {
      ...record,
      state: "failed",
      error: { code: "process", message: "its runner died before the dispatch ended" },
    };
    await rewriteRecord(root, settled);
    return {
      action: `brought back ${brought.commits} commit(s) and ${brought.files} uncommitted file(s) from ${name}`,
      record: settled,
    };
  } catch (error) {
    return { left: `the work in ${name} could not be brought back (${message(error)}); the sandbox was left in place: ${how}` };
  } finally {
    // Reopened to be kept (stopped, not removed): the removal is the clean's, once the work is home.
    await lease.release().catch(() => undefined);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
