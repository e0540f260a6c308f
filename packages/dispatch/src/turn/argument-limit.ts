import { OutpostError, type AgentAdapter, type ReplayAgent } from "@outpost/core";
import { isCustomAdapter } from "../agents/custom-adapter.js";

/** Linux refuses a single argument longer than this (MAX_ARG_STRLEN: 32 pages, the final NUL included). */
export const MAX_ARGUMENT_BYTES = 32 * 4096 - 1;

/**
 * Refuses, before anything is allocated, a brief that the agent's CLI would receive as one command-line
 * argument too long for the OS (spawn would fail with E2BIG after the worktree and sandbox exist). CLIs
 * that read the prompt on stdin take any brief up to MAX_BRIEF_BYTES.
 */
export function assertArgumentsFit(agent: AgentAdapter | ReplayAgent, prompt: string): void {
  // A replay runs no agent process; a custom agent's request() is the caller's own code (it may record, or
  // refuse a turn), asked only for the turns that run.
  if (agent.kind === "replay" || isCustomAdapter(agent)) return;
  let argumentsOf: readonly string[];
  try {
    argumentsOf = agent.command({ prompt, root: "/workspace", home: "/home/agent" }).arguments ?? [];
  } catch {
    return;
  }
  const longest = Math.max(0, ...argumentsOf.map((argument) => Buffer.byteLength(argument)));
  if (longest > MAX_ARGUMENT_BYTES) {
    throw new OutpostError(
      "configuration",
      `${agent.name} takes the brief as a command-line argument, and this one is ${longest} bytes: over the ${MAX_ARGUMENT_BYTES}-byte limit the OS puts on one argument. ` +
        `Shorten the brief (for example, point to a file in the repository instead of inlining it), or use an agent that reads the brief on stdin.`,
      { details: { agent: agent.name, bytes: longest, maximum: MAX_ARGUMENT_BYTES } },
    );
  }
}
