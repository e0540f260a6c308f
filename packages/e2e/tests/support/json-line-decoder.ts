import type { AgentEvent } from "@outpost/core";

/** A decoder for shell-line test agents that print AgentEvents as JSON lines; anything else is a raw line. */
export function jsonLineDecoder(): { decode(text: string): AgentEvent[] } {
  return {
    decode: (text) => {
      try {
        return [JSON.parse(text) as AgentEvent];
      } catch {
        return [{ type: "raw", line: text }];
      }
    },
  };
}
