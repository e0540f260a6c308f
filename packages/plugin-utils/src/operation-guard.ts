import { OutpostError, abortError } from "@outpost/core";

/** Turns a caller's `signal` and `deadlineMs` into one signal plus the error the operation fails with. */
export class OperationGuard {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private failure: OutpostError | undefined;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onAbort: (() => void) | undefined;

  constructor(
    private readonly options: { readonly signal?: AbortSignal; readonly deadlineMs?: number },
    private readonly what: string,
  ) {
    this.signal = this.controller.signal;
    const { signal, deadlineMs } = options;
    if (signal !== undefined) {
      this.onAbort = () => this.fail(abortError(signal, what));
      if (signal.aborted) this.onAbort();
      else signal.addEventListener("abort", this.onAbort, { once: true });
    }
    if (deadlineMs !== undefined && this.failure === undefined) {
      if (!Number.isFinite(deadlineMs) || deadlineMs < 0) {
        throw new OutpostError("configuration", `${what}: deadlineMs must be a non-negative number of milliseconds, got ${deadlineMs}.`, {
          details: { deadlineMs },
        });
      }
      this.timer = setTimeout(
        () =>
          this.fail(
            new OutpostError(
              "timeout",
              `${what} exceeded its deadline of ${deadlineMs} ms and was stopped. Raise deadlineMs if it needs longer.`,
              { details: { deadlineMs } },
            ),
          ),
        deadlineMs,
      );
    }
  }

  /** The error the operation fails with, once the signal fired or the deadline passed. */
  get error(): OutpostError | undefined {
    return this.failure;
  }

  /** Throws the failure if there is one. */
  readonly check = (): void => {
    if (this.failure !== undefined) throw this.failure;
  };

  dispose(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.onAbort !== undefined) this.options.signal?.removeEventListener("abort", this.onAbort);
  }

  /** Stops the operation with `error` (e.g. a refusal found while output streams in). */
  fail(error: OutpostError): void {
    if (this.failure !== undefined) return;
    this.failure = error;
    this.controller.abort(error);
  }
}
