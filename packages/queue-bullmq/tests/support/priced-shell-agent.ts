import type { AgentDescriptor, AgentEvent } from "@outpost/core";
import { shellAgentDescriptor } from "./shell-agent.js";

/** The shell agent, its final event reporting 10 input and 5 output tokens: a turn the worker can price. */
export const pricedShellAgentDescriptor: AgentDescriptor = {
  ...shellAgentDescriptor,
  name: "priced-shell",
  createAgent: (options) => {
    const agent = shellAgentDescriptor.createAgent(options);
    return {
      ...agent,
      name: "priced-shell",
      usage: "events",
      createDecoder: (context) => {
        const decoder = agent.createDecoder(context);
        return {
          decode: (line: string): AgentEvent[] =>
            decoder
              .decode(line)
              .map((event) => (event.type === "finished" ? { ...event, usage: { inputTokens: 10, outputTokens: 5 } } : event)),
        };
      },
    };
  },
};
