import { ReplayDivergence, type ReplayDivergenceInit, type ReplayDivergencePolicy } from "@outpost/core";

/**
 * Applies the divergence policy: `fail` throws the ReplayDivergence (code `replay`); `warn` reports it and lets
 * the replay continue. Running out of recorded turns always fails: there is nothing to replay.
 * Returns the divergence, for the dispatch's `divergences`.
 */
export function diverge(
  policy: ReplayDivergencePolicy,
  init: ReplayDivergenceInit,
  record: (divergence: ReplayDivergence) => void,
  warn: (message: string) => void,
): ReplayDivergence {
  const divergence = new ReplayDivergence(init);
  record(divergence);
  if (policy === "fail" || divergence.kind === "exhausted") throw divergence;
  warn(`Replay diverged (${divergence.kind}): ${divergence.message}`);
  return divergence;
}
