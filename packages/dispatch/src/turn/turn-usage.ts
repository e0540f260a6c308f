import type { AgentAdapter, Usage } from "@outpost/core";
import type { CapturedConversation } from "../conversation/capture-conversation.js";

// Without these two counters a turn's cost cannot be known, whatever else was reported.
const REQUIRED_COUNTERS = ["inputTokens", "outputTokens"] as const;

/**
 * The usage a turn records, by the agent's declared mode (seed 003 `usage`): `events` reads the stream,
 * `session` the transcript captured after exit, `unavailable` records none. Under a declared mode, missing
 * counters mark the usage incomplete; with no mode, what the events reported is counted as it is.
 */
export function turnUsage(agent: AgentAdapter, reported: Usage, captured: CapturedConversation): Usage {
  const measured = captured.usage ?? reported;
  switch (agent.usage) {
    case undefined:
      return measured;
    case "unavailable":
      return {};
    case "session":
      return captured.usage ? completeness(captured.usage) : { ...reported, incomplete: true };
    case "events":
      return completeness(measured);
  }
}

function completeness(usage: Usage): Usage {
  return REQUIRED_COUNTERS.every((counter) => usage[counter] !== undefined) ? usage : { ...usage, incomplete: true };
}
