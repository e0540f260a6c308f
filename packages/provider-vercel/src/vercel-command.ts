import type { Readable, Writable } from "node:stream";
import { DEFAULT_RETAIN_BYTES, OutpostError } from "@outpost/core";
import type { Command, CommandChannel, CommandResult } from "@outpost/core";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { OperationGuard, resolveCommandDirectory, TailBuffer } from "@outpost/plugin-utils";
import { runInSandbox } from "./run-in-sandbox.js";

/** Runs one Command: stdin then live input as frames, streamed output, exact status, retained tails. */
export async function runCommand(lease: LeaseSandbox, command: Command): Promise<CommandResult> {
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
      "The Vercel provider does not attach terminals to commands (the SDK's interactive sessions are not used). Run the command without interactive/terminal.",
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
    const outcome = await runInSandbox(lease, {
      argv: [command.executable, ...(command.arguments ?? [])],
      directory,
      variables: { ...command.variables, HOME: lease.home },
      onStdout: (text) => output.stdout.push(text),
      onStderr: (text) => output.stderr.push(text),
      guard,
      what: `run ${JSON.stringify(command.executable)} in the Vercel sandbox`,
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

function feedStdin(pipe: Writable, stdin: string | undefined, input: Readable | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    pipe.once("error", reject);
    if (stdin !== undefined && stdin !== "") pipe.write(stdin);
    if (input === undefined) return resolve();
    const finish = () => {
      input.unpipe(pipe);
      resolve();
    };
    input.once("end", finish);
    input.once("error", finish);
    pipe.once("close", () => input.unpipe(pipe));
    input.pipe(pipe, { end: false });
  });
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
