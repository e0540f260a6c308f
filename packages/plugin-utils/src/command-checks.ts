import { OutpostError } from "@outpost/core";
import type { Command } from "@outpost/core";
import type { WrapperStart } from "./framed-input.js";
import { resolveCommandDirectory } from "./sandbox-path.js";

/**
 * Rule: a command a provider runs has a non-empty executable without NUL, asks for no terminal, and has
 * variables whose names are non-empty without "=" or NUL and whose values have no NUL; its directory
 * resolves inside the lease root. Returns that directory. `platform` names the provider in messages.
 */
export function checkCommand(command: Command, root: string, platform: string): string {
  if (typeof command.executable !== "string" || command.executable === "" || command.executable.includes("\0")) {
    throw new OutpostError(
      "configuration",
      `Refused the command executable ${JSON.stringify(command.executable)}: give a non-empty program name or path.`,
    );
  }
  if (command.interactive || command.terminal !== undefined) {
    throw new OutpostError(
      "configuration",
      `The ${platform} provider does not attach terminals to commands. Run the command without interactive/terminal.`,
    );
  }
  for (const [name, value] of Object.entries(command.variables ?? {})) {
    if (name === "" || name.includes("=") || name.includes("\0") || String(value).includes("\0")) {
      throw new OutpostError(
        "configuration",
        `Refused the variable ${JSON.stringify(name)}: names cannot be empty or contain "=" or NUL, values cannot contain NUL.`,
      );
    }
  }
  return command.directory === undefined ? root : resolveCommandDirectory(root, command.directory, "command directory");
}

/**
 * The error for a process that never started: its directory is missing (`workspace`) or its executable is not
 * found (`process`, with `install`: what to do about it). Undefined when it started.
 */
export function startFailure(start: WrapperStart, executable: string, directory: string, install: string): OutpostError | undefined {
  if (!("missing" in start)) return undefined;
  if (start.missing === "directory") {
    return new OutpostError(
      "workspace",
      `Cannot run ${JSON.stringify(executable)}: the directory ${JSON.stringify(directory)} does not exist in the sandbox. ` +
        "Create it or pick another directory.",
      { details: { directory } },
    );
  }
  return new OutpostError("process", `Could not start ${JSON.stringify(executable)}: it was not found in the sandbox. ${install}`, {
    details: { executable },
  });
}
