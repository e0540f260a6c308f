import type { Duplex } from "node:stream";
import { OutpostError } from "@outpost/core";
import type Docker from "dockerode";
import type { CommandHomeFile } from "@outpost/core";
import { ExecProcess, type ExecSinks, type ExecStart } from "./exec-process.js";
import { encodeRequest, shellExports } from "./exec-request.js";
import { mapDockerError } from "./map-docker-error.js";
import type { OperationGuard } from "@outpost/plugin-utils";
import type { StandbyExec } from "./standby-exec.js";

/** Where execs are started: the container, and its standby exec when the lease keeps one. */
export interface ExecHost {
  readonly container: Docker.Container;
  readonly standby?: StandbyExec;
}

export interface RunExecOptions extends ExecSinks {
  /** Executable and arguments, run through COMMAND_WRAPPER (no shell parsing of them). */
  readonly argv: readonly string[];
  readonly directory: string;
  /** `NAME=value` pairs added to the container's environment. */
  readonly environment?: readonly string[];
  /** Written under `home` as part of starting the command. */
  readonly homeFiles?: { readonly home: string; readonly files: readonly CommandHomeFile[] };
  /** Writes the process's stdin; it is closed when this resolves. Absent: no stdin at all. */
  readonly feed?: (stdin: Duplex) => Promise<void>;
  readonly guard: OperationGuard;
  readonly what: string;
}

export interface ExecOutcome {
  readonly start: Exclude<ExecStart, { readonly lost: true }>;
  readonly status: number;
}

/**
 * Runs one process through exec and waits for it. When the guard fires, the process tree is killed
 * (never the container) and the guard's error is thrown once the process is gone.
 */
export async function runExec(host: ExecHost, options: RunExecOptions): Promise<ExecOutcome> {
  options.guard.check();
  const environment = options.environment ?? [];
  const exports = shellExports(environment);
  // Encoded first: a request that cannot be sent is refused before an exec is used up.
  const request = encodeRequest({
    directory: options.directory,
    argv: options.argv,
    ...(exports ? { exports } : {}),
    ...(options.homeFiles ? { homeFiles: options.homeFiles } : {}),
  });
  const sinks = { onStdout: options.onStdout, onStderr: options.onStderr };
  let process: ExecProcess | undefined;
  const stop = () => void process?.kill().catch(() => undefined);
  options.guard.signal.addEventListener("abort", stop, { once: true });
  let feedFailure: unknown;
  let exited = false;
  try {
    let start: ExecStart;
    try {
      // Variables sh cannot export travel in the Env of an exec of the command's own.
      const standby = exports ? await host.standby?.take() : undefined;
      process = standby ?? (await ExecProcess.spawn(host.container, exports ? [] : environment));
      start = await launch(process, request, sinks, options.guard.signal, stop);
      // A standby killed while it waited never read the request: the command gets an exec of its own.
      if (standby && "lost" in start) {
        process = await ExecProcess.spawn(host.container, []);
        start = await launch(process, request, sinks, options.guard.signal, stop);
      }
    } catch (error) {
      throw mapDockerError(error, options.what);
    }
    const running = process;
    host.standby?.warmDuring(running.exited);
    // stdin goes once the command started, so a command that never started consumed none of it.
    const feed = "pid" in start ? options.feed?.(running.stream) : undefined;
    (feed ?? Promise.resolve()).then(
      () => running.closeStdin(),
      (error: unknown) => {
        // Once the process is gone, a stdin it stopped reading is not a failure.
        if (exited) return;
        feedFailure = error;
        stop();
      },
    );
    const status = await running.exited;
    exited = true;
    options.guard.check();
    if (feedFailure !== undefined) throw feedError(feedFailure, options.what);
    return { start: "lost" in start ? { missing: "executable" } : start, status };
  } catch (error) {
    // Output that could not be delivered leaves the process running: it must not outlive the call.
    if (!exited) stop();
    throw mapDockerError(error, options.what);
  } finally {
    options.guard.signal.removeEventListener("abort", stop);
  }
}

/** Hands `process` the request and waits for its header; a stop asked for meanwhile kills it once it started. */
async function launch(process: ExecProcess, request: Buffer, sinks: ExecSinks, signal: AbortSignal, stop: () => void): Promise<ExecStart> {
  process.run(request, sinks);
  // The deadline may have passed while the exec was being created: the listener would never fire.
  if (signal.aborted) stop();
  return process.started;
}

/** stdin could not be fed: usually a host file that vanished or changed while it was being sent. */
function feedError(error: unknown, what: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  return new OutpostError(
    "workspace",
    `Could not ${what}: sending its input failed (${(error as Error).message}). Check that the host files still exist and retry.`,
    {
      cause: error,
    },
  );
}
