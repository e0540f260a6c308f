import { OutpostError } from "@outpost/core";
import { checkMilliseconds } from "../timers/timer-limit.js";

/**
 * Time limits of the preparation and sync stages, in milliseconds (past one: code `timeout`; the merge:
 * `conflict`), and, an Outpost addition, the largest work bundle accepted from a remote sandbox.
 */
export interface StageLimits {
  /** Copying `copies` into a new worktree. */
  readonly copyMs?: number;
  /** Git preparation: the worktree, and on a remote provider the seed and the sync back. */
  readonly gitMs?: number;
  /** Collecting the agent's commits. */
  readonly collectMs?: number;
  /** Integrating the work branch into its target. */
  readonly mergeMs?: number;
  /** Largest bundle of work downloaded from a remote sandbox; default 1 GiB. Larger: code `workspace`, host untouched. */
  readonly bundleBytes?: number;
  /**
   * Budget of the files a remote sandbox's sync back may write on the host, by their apparent sizes (a
   * sparse file counts whole); default 1 GiB. Checked in the sandbox before anything is sent and on the host
   * while writing; the commits too, by their objects' uncompressed sizes and the files they write into the
   * worktree (`remote/work-object-budget.ts`); over it: code `limit`, the host untouched.
   */
  readonly syncBackBytes?: number;
  /** How many files and links a sync back may write on the host; default 100,000 (code `limit`, host untouched). */
  readonly syncBackFiles?: number;
}

export const DEFAULT_BUNDLE_BYTES = 1024 ** 3;
export const DEFAULT_SYNC_BACK_BYTES = 1024 ** 3;
export const DEFAULT_SYNC_BACK_FILES = 100_000;

export interface ResolvedLimits {
  readonly copyMs?: number;
  readonly gitMs?: number;
  readonly collectMs?: number;
  readonly mergeMs?: number;
  readonly bundleBytes: number;
  readonly syncBackBytes: number;
  readonly syncBackFiles: number;
}

/** Checks `limits` before anything is allocated (code `configuration`). */
export function resolveLimits(limits: StageLimits | undefined): ResolvedLimits {
  if (limits === undefined)
    return { bundleBytes: DEFAULT_BUNDLE_BYTES, syncBackBytes: DEFAULT_SYNC_BACK_BYTES, syncBackFiles: DEFAULT_SYNC_BACK_FILES };
  if (typeof limits !== "object" || limits === null)
    throw new OutpostError("configuration", "limits must be an object such as { gitMs: 60000, mergeMs: 30000 }.");
  const known = ["copyMs", "gitMs", "collectMs", "mergeMs", "bundleBytes", "syncBackBytes", "syncBackFiles"];
  const unknown = Object.keys(limits).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw new OutpostError("configuration", `limits has unknown keys: ${unknown.join(", ")}. Use ${known.join(", ")}.`, {
      details: { option: "limits" },
    });
  const time = (name: "copyMs" | "gitMs" | "collectMs" | "mergeMs") =>
    limits[name] === undefined ? {} : { [name]: checkMilliseconds(`limits.${name}`, limits[name], 1) };
  return {
    ...time("copyMs"),
    ...time("gitMs"),
    ...time("collectMs"),
    ...time("mergeMs"),
    bundleBytes: count("bundleBytes", limits.bundleBytes ?? DEFAULT_BUNDLE_BYTES, "bytes"),
    syncBackBytes: count("syncBackBytes", limits.syncBackBytes ?? DEFAULT_SYNC_BACK_BYTES, "bytes"),
    syncBackFiles: count("syncBackFiles", limits.syncBackFiles ?? DEFAULT_SYNC_BACK_FILES, "files"),
  };
}

function count(name: string, value: number, unit: string): number {
  if (!Number.isSafeInteger(value) || value < 1)
    throw new OutpostError("configuration", `limits.${name} must be a positive whole number of ${unit}, got ${String(value)}.`, {
      details: { option: `limits.${name}` },
    });
  return value;
}
