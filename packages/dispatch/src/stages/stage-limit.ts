import { OutpostError } from "@outpost/core";
import type { DispatchState } from "./dispatch-state.js";

/** How long a step past its limit gets to notice its aborted signal before the stage fails anyway. */
const SETTLE_MS = 10_000;

/** The time limits of `limits`, and what each bounds. */
const LIMITED = {
  copyMs: { what: "copying `copies` into the worktree", code: "timeout" },
  gitMs: { what: "git preparation", code: "timeout" },
  collectMs: { what: "collecting the agent's commits", code: "timeout" },
  mergeMs: { what: "integrating the work branch", code: "conflict" },
} as const;

/**
 * Runs one bounded step of a stage under its `limits` entry: past it, the step's signal aborts (so its git
 * processes stop) and the stage fails at once with code `timeout`, or `conflict` for the merge, whose
 * target then never moves. Without the entry, the step runs under the dispatch's own signal.
 */
export async function withinLimit<T>(
  state: DispatchState,
  limit: keyof typeof LIMITED,
  step: (signal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  const ms = state.resolved.limits[limit];
  const parent = state.options.signal;
  if (ms === undefined) return step(parent);
  const { what, code } = LIMITED[limit];
  const expired = new OutpostError(
    code,
    `Stage ${state.phase} exceeded limits.${limit} (${ms} ms) ` +
      `while ${what}.${code === "conflict" ? " The target branch was not moved; the work is kept on its branch." : ""} Raise limits.${limit} or find what made it slow.`,
    { details: { limit, limitMs: ms, phase: state.phase } },
  );
  const controller = new AbortController();
  const forward = () => controller.abort(parent?.reason);
  parent?.addEventListener("abort", forward, { once: true });
  if (parent?.aborted) forward();
  let timer: NodeJS.Timeout | undefined;
  const work = step(controller.signal);
  // Settled either way: what the step did once its limit passed is decided below.
  const settled = work.then(
    () => undefined,
    () => undefined,
  );
  const limitReached = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort(expired);
      // The step stops at its next check of the signal: let it (briefly) so nothing it started outlives the stage.
      void Promise.race([settled, new Promise((done) => setTimeout(done, SETTLE_MS).unref())]).then(() => reject(expired));
    }, ms);
  });
  limitReached.catch(() => undefined);
  try {
    // A step that failed because its limit aborted it fails with the limit's error.
    const guarded = work.catch((error: unknown) => {
      throw controller.signal.reason === expired ? expired : error;
    });
    return await Promise.race([guarded, limitReached]);
  } finally {
    clearTimeout(timer);
    parent?.removeEventListener("abort", forward);
  }
}
