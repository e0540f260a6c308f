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
}

export const DEFAULT_BUNDLE_BYTES = 1024 ** 3;

export interface ResolvedLimits {
  readonly copyMs?: number;
  readonly gitMs?: number;
  readonly collectMs?: number;
  readonly mergeMs?: number;
  readonly bundleBytes: number;
}

/** Checks `limits` before anything is allocated (code `configuration`). */
export function resolveLimits(limits: StageLimits | undefined): ResolvedLimits {
  if (limits === undefined) return { bundleBytes: DEFAULT_BUNDLE_BYTES };
  if (typeof limits !== "object" || limits === null)
    throw new OutpostError("configuration", "limits must be an object such as { gitMs: 60000, mergeMs: 30000 }.");
  const known = ["copyMs", "gitMs", "collectMs", "mergeMs", "bundleBytes"];
  const unknown = Object.keys(limits).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw new OutpostError("configuration", `limits has unknown keys: ${unknown.join(", ")}. Use ${known.join(", ")}.`, {
      details: { option: "limits" },
    });
  const time = (name: "copyMs" | "gitMs" | "collectMs" | "mergeMs") =>
    limits[name] === undefined ? {} : { [name]: checkMilliseconds(`limits.${name}`, limits[name], 1) };
  const bytes = limits.bundleBytes ?? DEFAULT_BUNDLE_BYTES;
  if (!Number.isSafeInteger(bytes) || bytes < 1)
    throw new OutpostError("configuration", `limits.bundleBytes must be a positive whole number of bytes, got ${String(bytes)}.`, {
      details: { option: "limits.bundleBytes" },
    });
  return { ...time("copyMs"), ...time("gitMs"), ...time("collectMs"), ...time("mergeMs"), bundleBytes: bytes };
}
