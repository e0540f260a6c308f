import { OutpostError } from "@outpost/core";

/**
 * dispatch() has no default agent: page 004 says the agent comes "from createAgent() or createReplayAgent(),
 * or a createFallbackAgent()", and picking a vendor (and its key) for the caller would spend money they did
 * not choose to spend. So an omitted agent is refused before anything is allocated, quoting that rule.
 */
export function refuseMissingAgent(options: unknown): void {
  if (typeof options !== "object" || options === null || (options as { agent?: unknown }).agent !== undefined) return;
  throw new OutpostError(
    "configuration",
    'dispatch() needs an agent, which it does not choose for you: the agent comes "from createAgent() or createReplayAgent(), ' +
      'or a createFallbackAgent()" (reference page 004). Pass one, for example agent: await createAgent({ harness: "claude" }).',
  );
}
