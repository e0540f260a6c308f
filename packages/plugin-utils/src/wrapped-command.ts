import type { Writable } from "node:stream";
import { OutpostError } from "@outpost/core";
import type { Command, CommandResult } from "@outpost/core";
import type { WrapperStart } from "./framed-input.js";
import { checkCommand, startFailure } from "./command-checks.js";
import { commandOutputs } from "./command-output.js";
import { feedStdin } from "./feed-stdin.js";
import { OperationGuard } from "./operation-guard.js";

/** One process run through FRAMED_COMMAND_WRAPPER by a provider. */
export interface WrappedRun {
  /** Executable and arguments (no shell parsing of them). */
  readonly argv: readonly string[];
  readonly directory: string;
  readonly variables?: Readonly<Record<string, string>>;
  /** Output as text, or as bytes (a character may then be split between chunks: it is joined here). */
  readonly onStdout: (chunk: string | Buffer) => void;
  readonly onStderr: (chunk: string | Buffer) => void;
  /** Writes the process's stdin; it is closed when this resolves. Absent: stdin is /dev/null. */
  readonly feed?: (stdin: Writable) => Promise<void>;
  readonly guard: OperationGuard;
  readonly what: string;
  /**
   * Nobody follows the process while it runs (no `observe`, stdin, input, deadline or signal): a platform
   * may run it in one request and deliver its output when it ended.
   */
  readonly unwatched?: true;
  /**
   * The caller reads the output only once the process ended (a transfer script), and its stdin (`feed`) is
   * finite: a platform may send the input whole before the start and deliver the output at the end, still
   * honouring the guard.
   */
  readonly outputAtEnd?: true;
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
  const directory = checkCommand(command, lease.root, platform);
  const output = commandOutputs(command);
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
      ...(unwatched(command) ? { unwatched: true } : {}),
      // Nobody reads the output before the end and stdin is finite: a platform may answer in one request.
      ...(command.observe === undefined && input === undefined ? { outputAtEnd: true } : {}),
    });
    output.stdout.end();
    output.stderr.end();
    const failure = startFailure(outcome.start, command.executable, directory, "Install it first (the sandbox also needs /bin/sh).");
    if (failure) throw failure;
    return { status: outcome.status, stdout: output.stdout.text(), stderr: output.stderr.text() };
  } finally {
    guard.dispose();
  }
}

function unwatched(command: Command): boolean {
  const { observe, stdin, input, deadlineMs, signal } = command;
  return observe === undefined && stdin === undefined && input === undefined && deadlineMs === undefined && signal === undefined;
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
