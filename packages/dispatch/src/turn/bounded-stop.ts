import { OutpostError } from "@outpost/core";

/** How long a stopped agent's command may take to end before the turn stops waiting for it. */
export const STOP_GRACE_MS = 10_000;

/**
 * Waits for `work`, but once `stop` fires, no longer than `graceMs`: a sandbox that cannot end a
 * process (a paused container, an engine that stopped answering) must not hold the dispatch past its
 * deadline or an abort. The abandoned promise is kept from raising an unhandled rejection; the caller
 * releases the sandbox, which ends what is left.
 */
export function boundedAfterStop<T>(work: Promise<T>, stop: AbortSignal, graceMs = STOP_GRACE_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const abandoned = new Promise<never>((_, reject) => {
    onStop = () => {
      timer = setTimeout(
        () =>
          reject(
            new OutpostError(
              "provider",
              `The sandbox did not end the stopped agent within ${graceMs} ms (a paused or unresponsive sandbox); it is released instead.`,
              { details: { graceMs } },
            ),
          ),
        graceMs,
      );
    };
    if (stop.aborted) onStop();
    else stop.addEventListener("abort", onStop, { once: true });
  });
  abandoned.catch(() => undefined);
  work.catch(() => undefined);
  return Promise.race([work, abandoned]).finally(() => {
    clearTimeout(timer);
    if (onStop) stop.removeEventListener("abort", onStop);
  });
}
