/**
 * Waits for `pending` unless `signal` fires first: the caller then gets the signal's reason at once, and
 * what `pending` still resolves to is handed to `abandon` (best effort). A create request that the
 * platform keeps processing after the client gave up must not leave a sandbox behind.
 */
export function unlessAborted<T>(pending: Promise<T>, signal: AbortSignal, abandon: (value: T) => Promise<unknown>): Promise<T> {
  if (signal.aborted) {
    void pending.then(abandon).catch(() => undefined);
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      void pending.then(abandon).catch(() => undefined);
      reject(signal.reason as Error);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}
