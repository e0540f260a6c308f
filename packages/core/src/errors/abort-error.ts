import { OutpostError } from "./outpost-error.js";

/** The error an aborted operation rejects with: code `aborted`, the signal's reason as `cause`. */
export function abortError(signal: AbortSignal, what: string): OutpostError {
  const reason: unknown = signal.reason;
  const text = reason instanceof Error ? reason.message : reason === undefined ? "aborted" : String(reason);
  return new OutpostError("aborted", `${what} was aborted: ${text}.`, { cause: reason, details: { reason: text } });
}

/** Throws `abortError` when the signal has already fired. */
export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw abortError(signal, what);
}
