import type { Duplex } from "node:stream";
import { OutpostError, type Command, type CommandResult } from "@outpost/core";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { checkCommand, commandOutputs, feedStdin, OperationGuard, startFailure } from "@outpost/plugin-utils";
import { runExec } from "./run-exec.js";
import { containerGone } from "./container-gone.js";

/** Runs one Command through exec: stdin then live input, demuxed output, exact status, retained tails. */
export async function runCommand(sandbox: LeaseSandbox, command: Command): Promise<CommandResult> {
  sandbox.assertUsable("run a command");
  const directory = checkCommand(command, sandbox.root, "Docker");
  const environment = Object.entries(command.variables ?? {}).map(([name, value]) => `${name}=${value}`);
  const output = commandOutputs(command);
  const guard = new OperationGuard(command, `The command ${JSON.stringify(command.executable)}`);
  const { input, stdin } = command;
  try {
    const what = `run ${JSON.stringify(command.executable)} in the sandbox`;
    const outcome = await runExec(sandbox, {
      argv: [command.executable, ...(command.arguments ?? [])],
      directory,
      environment,
      ...(command.homeFiles && command.homeFiles.length > 0 ? { homeFiles: { home: sandbox.home, files: command.homeFiles } } : {}),
      onStdout: (chunk) => output.stdout.push(chunk),
      onStderr: (chunk) => output.stderr.push(chunk),
      guard,
      what,
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
    if ("refused" in outcome.start) {
      throw new OutpostError(
        "workspace",
        `Refused to write the home files of ${JSON.stringify(command.executable)}, which did not start: ${outcome.start.refused}. ` +
          "A home file is never written through a link: remove what stands in the way in the sandbox home.",
        { details: { reason: outcome.start.refused } },
      );
    }
    const install = "Check that the executable exists in the image and is on PATH (the image also needs /bin/sh).";
    const failure = startFailure(outcome.start, command.executable, directory, install);
    if (failure) throw failure;
    return { status: outcome.status, stdout: output.stdout.text(), stderr: output.stderr.text() };
  } finally {
    guard.dispose();
  }
}
