import { liveness, processStartedAt, type ProcessIdentity } from "@outpost/plugin-utils";

/** How often a holder renews its lock file's time, so a waiter that cannot see it can tell it still runs. */
export const LOCK_HEARTBEAT_MS = 5_000;
/** A holder that cannot be checked (another host, another container) and has not renewed for this long is gone. */
export const LOCK_SILENCE_MS = 30_000;
// A lock file is written complete before it appears, so an unreadable one is damaged, not half-written;
// still, a file just created by an older version (pid written after open) gets this long.
export const UNREADABLE_LOCK_GRACE_MS = 5_000;

/** What a lock file showed: its owner (absent when unreadable), when it was last written, whether pid-only. */
export interface LockEvidence {
  readonly owner?: ProcessIdentity;
  readonly writtenAtMs: number;
  /** The old format: a pid alone, written by an outpost that neither renewed it nor recorded more. */
  readonly legacy: boolean;
  /** The holder renews the file every LOCK_HEARTBEAT_MS; a JSON lock of an older outpost does not. */
  readonly renews: boolean;
}

export type LockVerdict = "held" | "stale";

/**
 * Whether a lock's holder may still run, from what can be proven, never a blind wait: an owner judged dead is
 * stale at once (another boot, an emptied or restarted container's pid namespace, a pid reused by a process
 * that started after the file was written); one that cannot be checked from here is stale once it stopped
 * renewing its file (when it said it renews it); an unreadable file once past a short grace.
 */
export function judgeLock(evidence: LockEvidence, now = Date.now()): LockVerdict {
  const age = now - evidence.writtenAtMs;
  if (evidence.owner === undefined) return age > UNREADABLE_LOCK_GRACE_MS ? "stale" : "held";
  if (evidence.legacy) return legacyHolderGone(evidence.owner.pid, evidence.writtenAtMs) ? "stale" : "held";
  const state = liveness(evidence.owner);
  if (state === "dead") return "stale";
  // An older outpost's holder never renewed its file: its silence proves nothing, it is waited for as before.
  return state === "unknown" && evidence.renews && age > LOCK_SILENCE_MS ? "stale" : "held";
}

// Start times are read in clock ticks and the file time has its own granularity: a second of slack.
const START_SLACK_MS = 1_000;

/** A pid-only lock of this host: gone when no process has that pid, or the one that has it started after the file. */
function legacyHolderGone(pid: number, writtenAtMs: number): boolean {
  if (liveness({ pid, host: "" }) === "dead") return true;
  const started = processStartedAt(pid);
  return started !== undefined && started > writtenAtMs + START_SLACK_MS;
}
