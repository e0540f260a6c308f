import { Writable } from "node:stream";
import { OutpostError } from "@outpost/core";
import { InputPump } from "./input-pump.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapVercelError } from "./map-vercel-error.js";
import { KILL_TREE, type OperationGuard } from "@outpost/plugin-utils";
import { COMMAND_WRAPPER, HEADER_BYTES } from "./command-wrapper.js";

export interface RunOptions {
  /** Executable and arguments, run through COMMAND_WRAPPER (no shell parsing of them). */
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

/** How the wrapper's header ended: a pid, or the reason the command never started. */
export type RunStart = { readonly pid: number } | { readonly missing: "directory" | "executable" };

export interface RunOutcome {
  readonly start: RunStart;
  readonly status: number;
}

/**
 * Runs one process through the SDK's streaming `runCommand` (one request: the ndjson log stream ends with
 * the exit code) and waits for it. When the guard fires, the process tree is killed by a second command
 * (never the sandbox), and the guard's error is thrown once the process is gone.
 */
export async function runInSandbox(lease: LeaseSandbox, options: RunOptions): Promise<RunOutcome> {
  options.guard.check();
  let header = "";
  let start: RunStart | undefined;
  const stdout = sink((text) => {
    if (start !== undefined) return options.onStdout(text);
    header += text;
    if (header.startsWith("D")) start = { missing: "directory" };
    else if (header.startsWith("X")) start = { missing: "executable" };
    else if (header.length >= HEADER_BYTES) {
      start = { pid: Number(header.slice(1, HEADER_BYTES)) };
      const rest = header.slice(HEADER_BYTES);
      if (rest !== "") options.onStdout(rest);
    }
  });
  const stderr = sink(options.onStderr);
  // Aborts the HTTP stream only when killing the tree in the sandbox failed: the process then may still
  // run, but the call must not hang.
  const stream = new AbortController();
  const input = options.feed === undefined ? "-" : `${lease.scratch}/${lease.nextName("in")}`;
  let killing: Promise<void> | undefined;
  const stop = () => {
    killing ??= killTree(lease, () => start).catch(() => stream.abort(options.guard.error));
  };
  options.guard.signal.addEventListener("abort", stop, { once: true });
  let feedFailure: unknown;
  let exited = false;
  if (options.feed !== undefined) {
    const pump = new InputPump(lease.sandbox, input, stream.signal);
    pump.on("error", (error) => {
      if (!exited) feedFailure ??= error;
    });
    options.feed(pump).then(
      () => void (pump.writableEnded ? undefined : pump.end()),
      (error: unknown) => {
        if (exited) return;
        feedFailure ??= error;
        stop();
      },
    );
  }
  try {
    const finished = await lease.sandbox.runCommand({
      cmd: "/bin/sh",
      args: ["-c", COMMAND_WRAPPER, "outpost", options.directory, input, ...options.argv],
      env: { ...lease.variables, ...options.variables },
      stdout,
      stderr,
      signal: stream.signal,
    });
    exited = true;
    await killing;
    options.guard.check();
    if (feedFailure !== undefined) throw feedError(feedFailure, options.what);
    return { start: start ?? { missing: "executable" }, status: finished.exitCode ?? 0 };
  } catch (error) {
    exited = true;
    if (options.guard.error !== undefined) throw options.guard.error;
    throw mapVercelError(error, options.what);
  } finally {
    options.guard.signal.removeEventListener("abort", stop);
  }
}

/** Stops the process group and every descendant of the command's wrapper, then SIGKILLs them. */
async function killTree(lease: LeaseSandbox, started: () => RunStart | undefined): Promise<void> {
  // The header comes first in the output; a command killed before it arrived has not started anything yet.
  for (let attempt = 0; started() === undefined && attempt < 100; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
  const start = started();
  if (start === undefined || !("pid" in start)) throw new Error("no pid to kill");
  await lease.sandbox.runCommand({ cmd: "/bin/sh", args: ["-c", KILL_TREE, "outpost-kill", String(start.pid)] });
}

function sink(deliver: (text: string) => void): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      deliver(typeof chunk === "string" ? chunk : chunk.toString("utf8"));
      callback();
    },
  });
}

/** stdin could not be fed: usually a host file that vanished or changed while it was being sent. */
function feedError(error: unknown, what: string): OutpostError {
  if (OutpostError.isInstance(error)) return error;
  return new OutpostError(
    "workspace",
    `Could not ${what}: sending its input failed (${(error as Error).message}). Check that the host files still exist and retry.`,
    { cause: error },
  );
}
