import { OutpostError, tailLines, type AgentAdapter } from "@outpost/core";
import { scriptAgent } from "@outpost/testkit/script-agent";

// The capture script of a bundled build died like this (issue 35): a long line of code, then a ReferenceError.
const BROKEN_SCRIPT = `const padding = "${"x".repeat(300)}"; __require("node:fs");`;

/**
 * The kit's script agent (a real process that commits and saves its conversation), with a store whose capture
 * runs a real sandbox script that fails, and reports it as a store does: an OutpostError with the stderr's tail.
 */
export function failingCaptureAgent(directory: string, behaviour: Readonly<Record<string, string>>): AgentAdapter {
  const agent = scriptAgent({ directory, behaviour });
  const storage = agent.storage!;
  return {
    ...agent,
    storage: {
      ...storage,
      async capture(id, context) {
        const result = await context.sandbox.invoke({
          executable: process.execPath,
          arguments: ["-e", BROKEN_SCRIPT],
          ...(context.signal ? { signal: context.signal } : {}),
        });
        throw new OutpostError(
          "process",
          `The capture script of conversation ${id} exited with ${result.status}: ${tailLines(result.stderr, 600)}. Check that node (18 or later) is on the sandbox PATH.`,
        );
      },
    },
  };
}
