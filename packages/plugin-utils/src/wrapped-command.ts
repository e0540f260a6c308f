import type { Writable } from "node:stream";
import { DEFAULT_RETAIN_BYTES, OutpostError } from "@outpost/core";
import type { Command, CommandChannel, CommandResult } from "@outpost/core";
import type { WrapperStart } from "./framed-input.js";
import { feedStdin } from "./feed-stdin.js";
import { OperationGuard } from "./operation-guard.js";
import { resolveCommandDirectory } from "./sandbox-path.js";
import { TailBuffer } from "./tail-buffer.js";

/** One process run through FRAMED_COMMAND_WRAPPER by a provider. */
export interface WrappedRun {
  /** Executable and arguments (no shell parsing of them). */
  readonly argv: readonly string[];
  readonly directory: string;
  readonly variables?: Readonly<Record<string, string>>;
  readonly onStdout: (text: string) => void;
  readonly onStderr: (text: string) => void;
  /** Writes the process's stdin; it is closed when this resolves. Absent: stdin is /dev/null. */
  readonly feed?: (stdin: Writable) => Promise<void>;
  readonly guard: OperationGuard;
  readonly what: string;
}

export interface WrappedOutcome {
  readonly start: WrapperStart;
  readonly status: number;
}

/** The lease side a wrapped command needs. */
export interface WrappedLease {
  readonly root: string;
  readonly home: string;
  assertUsable(what: string): void;
}

/**
 * Runs one `Command` on a provider whose processes start through FRAMED_COMMAND_WRAPPER: checks the
 * command, feeds stdin then live input, streams output to `observe`, keeps the tails and turns the
 * wrapper's header into the right error when nothing started. `platform` names the provider in messages.
 */
export async function runWrappedCommand(
  lease: WrappedLease,
  command: Command,
  platform: string,
  run: (options: WrappedRun) => Promise<WrappedOutcome>,
): Promise<CommandResult> {
  lease.assertUsable("run a command");
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
  const directory =
    command.directory === undefined ? lease.root : resolveCommandDirectory(lease.root, command.directory, "command directory");
  for (const [name, value] of Object.entries(command.variables ?? {})) {
    if (name === "" || name.includes("=") || name.includes("\0") || String(value).includes("\0")) {
      throw new OutpostError(
        "configuration",
        `Refused the variable ${JSON.stringify(name)}: names cannot be empty or contain "=" or NUL, values cannot contain NUL.`,
      );
    }
  }
  const retain = command.retain ?? DEFAULT_RETAIN_BYTES;
  const output = { stdout: new Collector("stdout", retain, command.observe), stderr: new Collector("stderr", retain, command.observe) };
  const guard = new OperationGuard(command, `The command ${JSON.stringify(command.executable)}`);
  const { input, stdin } = command;
  try {
    const outcome = await run({
      argv: [command.executable, ...(command.arguments ?? [])],
      directory,
      variables: { ...command.variables, HOME: lease.home },
      onStdout: (text) => output.stdout.push(text),
      onStderr: (text) => output.stderr.push(text),
      guard,
      what: `run ${JSON.stringify(command.executable)} in the ${platform} sandbox`,
      ...(stdin === undefined && input === undefined ? {} : { feed: (pipe: Writable) => feedStdin(pipe, stdin, input) }),
    });
    if ("missing" in outcome.start) {
      if (outcome.start.missing === "directory") {
        throw new OutpostError(
          "workspace",
          `Cannot run ${JSON.stringify(command.executable)}: the directory ${JSON.stringify(directory)} does not exist in the sandbox. Create it or pick another directory.`,
          { details: { directory } },
        );
      }
      throw new OutpostError(
        "process",
        `Could not start ${JSON.stringify(command.executable)}: it was not found in the sandbox. Install it first (the sandbox also needs /bin/sh).`,
        { details: { executable: command.executable } },
      );
    }
    return { status: outcome.status, stdout: output.stdout.text(), stderr: output.stderr.text() };
  } finally {
    guard.dispose();
  }
}

/** One output channel: retained tail plus the text for `observe` (whose exceptions are swallowed). */
class Collector {
  private readonly tail: TailBuffer;

  constructor(
    private readonly channel: CommandChannel,
    retain: number,
    private readonly observe: Command["observe"],
  ) {
    this.tail = new TailBuffer(retain);
  }

  push(text: string): void {
    this.tail.push(Buffer.from(text, "utf8"));
    if (this.observe === undefined || text === "") return;
    try {
      this.observe(this.channel, text);
    } catch {
      // The contract: an observer's exception never breaks the run.
    }
  }

  text(): string {
    return this.tail.text();
  }
}

/** stdin could not be fed: usually a host file that vanished or changed while it was being sent. */
export function inputFailure(error: unknown, what: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  return new OutpostError(
    "workspace",
    `Could not ${what}: sending its input failed (${(error as Error).message}). Check that the host files still exist and retry.`,
    { cause: error },
  );
}
