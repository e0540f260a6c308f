import { OutpostError } from "@outpost/core";
import { mapDaytonaError } from "./map-daytona-error.js";

/** Tries of an idempotent call: the first and three more. */
export const RETRY_ATTEMPTS = 4;
// Backoff between tries (doubled each time, with jitter); a 429's Retry-After is honoured up to this bound,
// a longer one fails at once as `quota` (the caller decides whether to wait that long).
const FIRST_WAIT_MS = 250;
const LONGEST_RETRY_AFTER_S = 5;

/**
 * Runs an idempotent SDK call, trying again on 5xx, 429 and a connection failure with backoff (the Vercel
 * SDK does the same; @daytonaio/sdk does not). After the last try the mapped error says how many were made.
 * `signal` stops the waiting between tries.
 */
export async function withRetry<T>(call: () => Promise<T>, action: string, signal?: AbortSignal): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const wait = retryWait(error, attempt);
      if (wait === undefined || attempt >= RETRY_ATTEMPTS || signal?.aborted === true) {
        const mapped = mapDaytonaError(error, action);
        if (attempt === 1 || wait === undefined) throw mapped;
        throw new OutpostError(mapped.code, `${mapped.message} (${attempt} tries, with backoff)`, {
          cause: error,
          details: { ...mapped.details, attempts: attempt },
        });
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** How long to wait before the next try, or undefined when the failure is not worth another. */
function retryWait(error: unknown, attempt: number): number | undefined {
  if (OutpostError.isInstance(error)) return undefined;
  const failure = (error ?? {}) as {
    statusCode?: number;
    name?: string;
    headers?: { get?(name: string): unknown } & Record<string, unknown>;
  };
  const backoff = FIRST_WAIT_MS * 2 ** (attempt - 1) * (0.75 + Math.random() / 2);
  const status = failure.statusCode;
  if (status === 429) {
    const after = Number(retryAfter(failure.headers));
    if (!Number.isFinite(after)) return backoff;
    return after <= LONGEST_RETRY_AFTER_S ? Math.max(after * 1000, backoff) : undefined;
  }
  if (status !== undefined && status >= 500) return backoff;
  if (status === undefined && /Connection/.test(failure.name ?? "")) return backoff;
  return undefined;
}

function retryAfter(headers: ({ get?(name: string): unknown } & Record<string, unknown>) | undefined): unknown {
  if (headers === undefined) return undefined;
  return typeof headers.get === "function" ? headers.get("retry-after") : headers["retry-after"];
}
