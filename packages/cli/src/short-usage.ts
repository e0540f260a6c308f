import type { Command } from "./commander.js";

/**
 * A usage error prints the error, the command's one usage line and where to read more, not commander's
 * whole help (70 lines for `run`, which push the error itself off the screen). Call once all options are added.
 */
export function shortUsageErrors(command: Command, path = command.name()): Command {
  command.showHelpAfterError(`Usage: ${path} ${command.usage()}\nRun \`${path} --help\` for more.`);
  for (const sub of command.commands) shortUsageErrors(sub, `${path} ${sub.name()}`);
  return command;
}
