import { CommanderError } from "commander";

// One place the CLI takes commander from. The CommonJS start (dist/bin.cjs) inlines commander: one compiled
// copy loads in about half the time of its seven CommonJS files.
export { Command, CommanderError, InvalidArgumentError } from "commander";

/**
 * A commander exit (help shown, usage error) from either copy of commander: the start's inlined one or the one
 * a plugin's command group (an ES module loaded on use) parses with, so `instanceof` alone would miss it.
 */
export function isCommanderError(error: unknown): error is CommanderError {
  if (error instanceof CommanderError) return true;
  const { code, exitCode } = (error ?? {}) as { code?: unknown; exitCode?: unknown };
  return error instanceof Error && typeof code === "string" && code.startsWith("commander.") && typeof exitCode === "number";
}
