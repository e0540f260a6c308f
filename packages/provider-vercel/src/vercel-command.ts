import type { Command, CommandResult } from "@outpost/core";
import { runWrappedCommand } from "@outpost/plugin-utils";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { runInSandbox } from "./run-in-sandbox.js";

/** Runs one Command: stdin then live input as frames, streamed output, exact status, retained tails. */
export function runCommand(lease: LeaseSandbox, command: Command): Promise<CommandResult> {
  return runWrappedCommand(lease, command, "Vercel", (options) => runInSandbox(lease, options));
}
