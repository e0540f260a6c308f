import { OutpostError, abortError, throwIfAborted, type TransferOptions } from "@outpost/core";
import type { ReferenceFlaws } from "./provider-reference.js";

/** A check to call between files: throws `aborted` or `timeout` once the transfer must stop (unless a flaw says otherwise). */
export function referenceGuard(options: TransferOptions | undefined, what: string, flaws: ReferenceFlaws): () => void {
  throwIfAborted(options?.signal, what);
  const deadline = options?.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs;
  return () => {
    if (options?.signal?.aborted && !flaws.transfersCheckAbortOnlyAtStart) throw abortError(options.signal, what);
    if (deadline !== undefined && Date.now() > deadline && !flaws.transfersIgnoreDeadline) {
      throw new OutpostError("timeout", `${what} passed its deadline of ${options!.deadlineMs} ms.`);
    }
  };
}
