import { OutpostError } from "@outpost/core";
import type { DispatchRecovery } from "../dispatch-options.js";

// The reason is the caller's own value: the dispatch's error is kept beside it, not written onto it.
const failures = new WeakMap<object, OutpostError>();

/**
 * A cancelled dispatch rejects with its signal's reason itself; the OutpostError it would otherwise have
 * thrown (code `aborted`, recovery details) is remembered for `dispatchAbortError`.
 */
export function rejectionFor(error: unknown, signal: AbortSignal | undefined): unknown {
  if (!signal?.aborted) return error;
  const reason: unknown = signal.reason;
  const failure = OutpostError.isInstance(error)
    ? error
    : new OutpostError("aborted", `The dispatch was aborted and then failed: ${error instanceof Error ? error.message : String(error)}.`, {
        cause: error,
      });
  if ((typeof reason === "object" || typeof reason === "function") && reason !== null) failures.set(reason, failure);
  return reason;
}

/**
 * After `dispatch()` rejected with the reason of its aborted `signal`, returns the OutpostError describing
 * the cancelled dispatch: its code (usually `aborted`) and, once anything was allocated, `details.recovery`
 * (branch, worktree, commits, conversation). Undefined for any other value, or a reason that is not an
 * object. When several dispatches share one signal, the one that rejected last is described.
 */
export function dispatchAbortError(reason: unknown): OutpostError | undefined {
  return (typeof reason === "object" || typeof reason === "function") && reason !== null ? failures.get(reason) : undefined;
}

/** The recovery details of a dispatch's error, or of the reason an aborted dispatch rejected with. */
export function dispatchRecovery(error: unknown): DispatchRecovery | undefined {
  const failure = OutpostError.isInstance(error) ? error : dispatchAbortError(error);
  return (failure?.details as { recovery?: DispatchRecovery } | undefined)?.recovery;
}
