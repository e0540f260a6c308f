/** Token usage of a turn. Counters the agent does not report are absent. */
export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadTokens?: number;
  readonly cacheWriteTokens?: number;
  readonly reasoningTokens?: number;
  readonly costUsd?: number;
  /**
   * A source of usage was missing (the CLI version writes none where it is read, or the turn was not
   * captured): the counters present may be lower than what the turn used. Absent when usage is complete.
   */
  readonly incomplete?: true;
}

/** Adds two usages counter by counter; a counter absent on both sides stays absent; incomplete spreads. */
export function addUsage(left: Usage, right: Usage): Usage {
  const keys = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens", "costUsd"] as const;
  const sum: Record<string, number> = {};
  for (const key of keys) {
    if (left[key] !== undefined || right[key] !== undefined) sum[key] = (left[key] ?? 0) + (right[key] ?? 0);
  }
  // One incomplete part makes the whole incomplete.
  return left.incomplete || right.incomplete ? { ...sum, incomplete: true } : sum;
}
