import type { Duplex } from "node:stream";
import { OutpostError } from "@outpost/core";
import type Docker from "dockerode";
import { ExecProcess, type ExecLaunch, type ExecStart } from "./exec-process.js";
import { mapDockerError } from "./map-docker-error.js";
import type { OperationGuard } from "@outpost/plugin-utils";

export interface RunExecOptions extends Omit<ExecLaunch, "attachStdin"> {
  /** Writes the process's stdin; it is closed when this resolves. Absent: no stdin at all. */
  readonly feed?: (stdin: Duplex) => Promise<void>;
  readonly guard: OperationGuard;
  readonly what: string;
}

export interface ExecOutcome {
  readonly start: ExecStart;
  readonly status: number;
}

/**
 * Runs one process through exec and waits for it. When the guard fires, the process tree is killed
 * (never the container) and the guard's error is thrown once the process is gone.
 */
export async function runExec(container: Docker.Container, options: RunExecOptions): Promise<ExecOutcome> {
  options.guard.check();
  let process: ExecProcess;
  try {
    process = await ExecProcess.start(container, { ...options, attachStdin: options.feed !== undefined });
  } catch (error) {
    throw mapDockerError(error, options.what);
  }
  const stop = () => void process.kill().catch(() => undefined);
  options.guard.signal.addEventListener("abort", stop, { once: true });
  // The deadline may have passed while the exec was being created: the listener would never fire.
  if (options.guard.signal.aborted) stop();
  let feedFailure: unknown;
  let exited = false;
  options.feed?.(process.stream).then(
    () => process.closeStdin(),
    (error: unknown) => {
      // Once the process is gone, a stdin it stopped reading is not a failure.
      if (exited) return;
      feedFailure = error;
      stop();
    },
  );
  try {
    const status = await process.exited;
    exited = true;
    options.guard.check();
    if (feedFailure !== undefined) throw feedError(feedFailure, options.what);
    return { start: await process.started, status };
  } catch (error) {
    // Output that could not be delivered leaves the process running: it must not outlive the call.
    if (!exited) stop();
    throw mapDockerError(error, options.what);
  } finally {
    options.guard.signal.removeEventListener("abort", stop);
  }
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
