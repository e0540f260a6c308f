import type { DispatchOptions } from "../dispatch-options.js";

/** A replay needs no brief: left out, it is the one the journal recorded (its first turn's prompt). */
export function withReplayBrief(options: DispatchOptions): DispatchOptions {
  const agent = (options as DispatchOptions | undefined)?.agent;
  if (!agent || agent.kind !== "replay" || options.brief !== undefined) return options;
  const first = agent.turns[0];
  return first ? { ...options, brief: { text: first.prompt } } : options;
}
