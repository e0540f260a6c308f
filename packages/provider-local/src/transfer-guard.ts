import { OutpostError, abortError } from "@outpost/core";
import type { TransferOptions } from "@outpost/core";

/** Returns a check to call between steps: throws `aborted` or `timeout` once the transfer must stop. */
export function transferGuard(options: TransferOptions | undefined, what: string): () => void {
  const deadline = options?.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs;
  return () => {
    if (options?.signal?.aborted) throw abortError(options.signal, what);
    if (deadline !== undefined && Date.now() > deadline) {
      throw new OutpostError("timeout", `${what} passed its deadline of ${options!.deadlineMs} ms. Raise deadlineMs or move fewer files.`, {
        details: { deadlineMs: options!.deadlineMs },
      });
    }
  };
}
