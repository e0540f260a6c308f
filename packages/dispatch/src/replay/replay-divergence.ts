import { OutpostError, type ReplayDivergence, type ReplayDivergencePolicy } from "@outpost/core";

/**
 * Applies the divergence policy: `fail` throws code `replay` with the divergence in its details; `warn`
 * reports it and lets the replay continue. Running out of recorded turns always fails: there is nothing to replay.
 */
export function diverge(policy: ReplayDivergencePolicy, divergence: ReplayDivergence, warn: (message: string) => void): void {
  if (policy === "fail" || divergence.kind === "exhausted")
    throw new OutpostError("replay", divergence.message, { details: { divergence: { ...divergence } } });
  warn(`Replay diverged (${divergence.kind}): ${divergence.message}`);
}
