import { Writable } from "node:stream";
import { FramedInput, inputFailure, KILL_TREE, startedPid, startFeed, WrapperHeader } from "@outpost/plugin-utils";
import type { FeedWatch, InputFrameFile, WrappedOutcome, WrappedRun } from "@outpost/plugin-utils";
import { framedArguments, installedScript } from "./installed-scripts.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapVercelError } from "./map-vercel-error.js";

/**
 * Runs one process through the SDK's streaming `runCommand` (one request: the ndjson log stream ends with
 * the exit code) and waits for it. When the guard fires, the process tree is killed by a second command
 * (never the sandbox), and the guard's error is thrown once the process is gone.
 */
export async function runInSandbox(lease: LeaseSandbox, options: WrappedRun): Promise<WrappedOutcome> {
  options.guard.check();
  const header = new WrapperHeader(options.onStdout);
  const stdout = sink(header.push);
  const stderr = sink(options.onStderr);
  // Aborts the HTTP stream only when killing the tree in the sandbox failed: the process then may still
  // run, but the call must not hang.
  const stream = new AbortController();
  const input = options.feed === undefined ? "-" : `${lease.scratch}/${lease.nextName("in")}`;
  let killing: Promise<void> | undefined;
  const stop = () => {
    killing ??= killTree(lease, () => header.start).catch(() => stream.abort(options.guard.error));
  };
  options.guard.signal.addEventListener("abort", stop, { once: true });
  const watch: FeedWatch = { failure: undefined, exited: false };
  if (options.feed !== undefined) {
    // writeFiles sends one tar, extracted in order: a frame and its marker can travel together.
    // A frame the API refused is the platform's failure (mapped), not a host file's.
    const send = (files: readonly InputFrameFile[]) =>
      lease.sandbox
        .writeFiles(
          files.map(({ path, content }) => ({ path, content })),
          { signal: stream.signal },
        )
        .catch((error: unknown) => {
          throw mapVercelError(error, options.what);
        });
    startFeed(options.feed, new FramedInput(send, input, { ordered: true }), watch, stop);
  }
  try {
    const finished = await lease.sandbox.runCommand({
      cmd: "/bin/sh",
      args: framedArguments(lease.scratch, options.directory, input, options.argv),
      env: { ...lease.variables, ...options.variables },
      stdout,
      stderr,
      signal: stream.signal,
    });
    watch.exited = true;
    await killing;
    options.guard.check();
    if (watch.failure !== undefined) throw inputFailure(watch.failure, options.what);
    return { start: header.start ?? { missing: "executable" }, status: finished.exitCode ?? 0 };
  } catch (error) {
    watch.exited = true;
    if (options.guard.error !== undefined) throw options.guard.error;
    throw mapVercelError(error, options.what);
  } finally {
    options.guard.signal.removeEventListener("abort", stop);
  }
}

/** Stops the process group and every descendant of the command's wrapper, then SIGKILLs them. */
async function killTree(lease: LeaseSandbox, started: () => WrappedOutcome["start"] | undefined): Promise<void> {
  const pid = await startedPid(started);
  await lease.sandbox.runCommand({ cmd: "/bin/sh", args: [installedScript(lease.scratch, KILL_TREE)!, String(pid)] });
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
