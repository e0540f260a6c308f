import type { SandboxLease } from "@outpost/core";
import type { ActivityRecord } from "../activity/activity-record.js";

/**
 * Leases again the sandbox a dead dispatch left, by the id and provider name its record holds (and the root
 * its lease had, when recorded), so its work can be brought back before it is removed; releasing that lease
 * removes the sandbox. Undefined: the provider cannot reopen sandboxes (the CLI asks the provider's
 * descriptor for its `sandbox` option).
 */
export type SandboxReopener = (id: string, provider: string, root?: string) => Promise<SandboxLease | undefined>;

/** Phases in which the agent may have committed in its sandbox and the host has not fetched it yet. */
const AGENT_PHASES = new Set(["turns", "syncBack"]);

/**
 * Whether a record's sandbox may hold work the host lacks: a sandbox with a file system of its own (isolated
 * Docker, a cloud sandbox: no private git directory on the host) whose runner died while the agent worked in it
 * (a dispatch that failed by itself rescued its work before releasing the sandbox). An unknown phase counts.
 */
export function sandboxMayHoldWork(record: ActivityRecord): boolean {
  return (
    record.sandbox !== undefined &&
    record.sandboxGit === undefined &&
    record.state === "running" &&
    record.branch !== undefined &&
    record.baseline !== undefined &&
    (record.phase === undefined || AGENT_PHASES.has(record.phase))
  );
}
