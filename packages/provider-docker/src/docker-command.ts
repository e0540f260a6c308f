import { StringDecoder } from "node:string_decoder";
import type { Duplex } from "node:stream";
import { DEFAULT_RETAIN_BYTES, OutpostError } from "@outpost/core";
import type { Command, CommandChannel, CommandResult } from "@outpost/core";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { OperationGuard } from "@outpost/plugin-utils";
import { runExec } from "./run-exec.js";
import { containerGone } from "./container-gone.js";
import { feedStdin, resolveCommandDirectory, TailBuffer } from "@outpost/plugin-utils";

/** Runs one Command through exec: stdin then live input, demuxed output, exact status, retained tails. */
export async function runCommand(sandbox: LeaseSandbox, command: Command): Promise<CommandResult> {
  sandbox.assertUsable("run a command");
  if (typeof command.executable !== "string" || command.executable === "" || command.executable.includes("\0")) {
    throw new OutpostError(
      "configuration",
      `Refused the command executable ${JSON.stringify(command.executable)}: give a non-empty program name or path.`,
    );
  }
  if (command.interactive || command.terminal !== undefined) {
    throw new OutpostError(
      "configuration",
      "The Docker provider does not attach terminals to commands. Run the command without interactive/terminal.",
    );
  }
  const directory =
    command.directory === undefined ? sandbox.root : resolveCommandDirectory(sandbox.root, command.directory, "command directory");
  const environment = Object.entries(command.variables ?? {}).map(([name, value]) => {
    if (name === "" || name.includes("=") || name.includes("\0") || String(value).includes("\0")) {
      throw new OutpostError(
        "configuration",
        `Refused the variable ${JSON.stringify(name)}: names cannot be empty or contain "=" or NUL, values cannot contain NUL.`,
      );
    }
    return `${name}=${value}`;
  });
  const retain = command.retain ?? DEFAULT_RETAIN_BYTES;
  const output = { stdout: new Collector("stdout", retain, command.observe), stderr: new Collector("stderr", retain, command.observe) };
  const guard = new OperationGuard(command, `The command ${JSON.stringify(command.executable)}`);
  const { input, stdin } = command;
  try {
    const what = `run ${JSON.stringify(command.executable)} in the sandbox`;
    const outcome = await runExec(sandbox.container, {
      argv: [command.executable, ...(command.arguments ?? [])],
      directory,
      environment,
      onStdout: (chunk) => output.stdout.push(chunk),
      onStderr: (chunk) => output.stderr.push(chunk),
      guard,
      what: `run ${JSON.stringify(command.executable)} in the sandbox`,
      ...(stdin === undefined && input === undefined ? {} : { feed: (pipe: Duplex) => feedStdin(pipe, stdin, input) }),
    }).catch(async (error: unknown) => {
      // A stop asked for (deadline, abort) keeps its own error; otherwise the container itself may be gone.
      throw (guard.signal.aborted ? undefined : await containerGone(sandbox.container, what)) ?? error;
    });
    // An exit forced by the container's end (docker kill, OOM, removal) is not the command's own failure.
    if (outcome.status !== 0 && !guard.signal.aborted) {
      const gone = await containerGone(sandbox.container, what);
      if (gone) throw gone;
    }
    output.stdout.end();
    output.stderr.end();
    if ("missing" in outcome.start) {
      if (outcome.start.missing === "directory") {
        throw new OutpostError(
          "workspace",
          `Cannot run ${JSON.stringify(command.executable)}: the directory ${JSON.stringify(directory)} does not exist in the sandbox. Create it or pick another directory.`,
          {
            details: { directory },
          },
        );
      }
      throw new OutpostError(
        "process",
        `Could not start ${JSON.stringify(command.executable)}: it was not found in the sandbox. Check that the executable exists in the image and is on PATH (the image also needs /bin/sh).`,
        {
          details: { executable: command.executable },
        },
      );
    }
    return { status: outcome.status, stdout: output.stdout.text(), stderr: output.stderr.text() };
  } finally {
    guard.dispose();
  }
}

/** One output channel: retained tail plus decoded text for `observe` (whose exceptions are swallowed). */
class Collector {
  private readonly tail: TailBuffer;
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly channel: CommandChannel,
    retain: number,
    private readonly observe: Command["observe"],
  ) {
    this.tail = new TailBuffer(retain);
  }

  push(chunk: Buffer): void {
    this.tail.push(chunk);
    this.deliver(this.decoder.write(chunk));
  }

  end(): void {
    this.deliver(this.decoder.end());
  }

  text(): string {
    return this.tail.text();
  }

  private deliver(text: string): void {
    if (this.observe === undefined || text === "") return;
    try {
      this.observe(this.channel, text);
    } catch {
      // The contract: an observer's exception never breaks the run.
    }
  }
}
