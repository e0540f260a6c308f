import { FRAMED_COMMAND_WRAPPER, FramedInput, inputFailure, KILL_TREE, startedPid, startFeed } from "@outpost/plugin-utils";
import type { FeedWatch, InputFrameFile, WrappedOutcome, WrappedRun } from "@outpost/plugin-utils";
import { OutpostError } from "@outpost/core";
import { ENCODED_OUTPUT_WRAPPER } from "./encoded-output-wrapper.js";
import { EncodedOutput } from "./encoded-output.js";
import { followOutput } from "./follow-output.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapDaytonaError } from "./map-daytona-error.js";
import { sessionLine, shellCommand } from "./shell-words.js";
import { withRetry } from "./with-retry.js";
import { WrapperStartReader } from "./wrapper-start.js";

/**
 * Runs one process as a session command: FRAMED_COMMAND_WRAPPER (directory, stdin frames, pid header)
 * inside ENCODED_OUTPUT_WRAPPER (output as hex lines that survive the daemon's line labelling), in a
 * session of its own (see SessionPool).
 */
export async function runInDaytona(lease: LeaseSandbox, options: WrappedRun): Promise<WrappedOutcome> {
  options.guard.check();
  const header = new WrapperStartReader((bytes) => options.onStdout(bytes));
  let delivered = 0;
  const output = new EncodedOutput(
    (bytes) => {
      delivered += bytes.length;
      header.push(bytes);
    },
    (bytes) => {
      delivered += bytes.length;
      options.onStderr(bytes);
    },
  );
  const input = options.feed === undefined ? "-" : `${lease.scratch}/${lease.nextName("in")}`;
  const files = `${lease.scratch}/${lease.nextName("out")}`;
  const framed = ["/bin/sh", "-c", FRAMED_COMMAND_WRAPPER, "outpost", options.directory, input, ...options.argv];
  const wrapped = shellCommand(["/bin/sh", "-c", ENCODED_OUTPUT_WRAPPER, "outpost-output", files, ...framed]);
  const line = sessionLine({ ...lease.variables, ...options.variables }, wrapped);
  const session = await lease.sessions.take().catch((error: unknown) => {
    throw mapDaytonaError(error, options.what);
  });
  const run: SessionRun = { session, line, input, header, output, delivered: () => delivered };
  const outcome = options.unwatched ? await runInOneRequest(lease, run, options) : await runFollowed(lease, run, options);
  lease.sessions.giveBack(session);
  return outcome;
}

interface SessionRun {
  readonly session: string;
  readonly line: string;
  /** The wrapper's input directory, or `-`. */
  readonly input: string;
  readonly header: WrapperStartReader;
  readonly output: EncodedOutput;
  delivered(): number;
}

/**
 * An async session command, its output followed live over the SDK's log stream (see followOutput). When the
 * guard fires, the process tree is killed by a second command (never the sandbox), and the guard's error is
 * thrown once the process is gone.
 */
async function runFollowed(lease: LeaseSandbox, run: SessionRun, options: WrappedRun): Promise<WrappedOutcome> {
  const { session, line, input, header, output } = run;
  const process = lease.sandbox.process;
  let killFailed: ((error: unknown) => void) | undefined;
  const abandoned = new Promise<never>((_resolve, reject) => (killFailed = reject));
  abandoned.catch(() => undefined);
  let killing: Promise<void> | undefined;
  const stop = () => {
    killing ??= killTree(lease, () => header.start).catch(() => killFailed?.(options.guard.error));
  };
  options.guard.signal.addEventListener("abort", stop, { once: true });
  const watch: FeedWatch = { failure: undefined, exited: false };
  try {
    const { cmdId } = await process.executeSessionCommand(session, { command: line, runAsync: true });
    if (options.feed !== undefined)
      startFeed(options.feed, new FramedInput((files) => writeFrames(lease, files, options.what), input), watch, stop);
    const followed = { sandbox: lease.sandbox, session, cmdId, output, guard: options.guard, what: options.what, delivered: run.delivered };
    const end = await Promise.race([followOutput(followed), abandoned]);
    watch.exited = true;
    await killing;
    options.guard.check();
    if (watch.failure !== undefined) throw inputFailure(watch.failure, options.what);
    return { start: header.start ?? { missing: "executable" }, status: end.status };
  } catch (error) {
    watch.exited = true;
    if (options.guard.error !== undefined) throw options.guard.error;
    throw mapDaytonaError(error, options.what);
  } finally {
    options.guard.signal.removeEventListener("abort", stop);
  }
}

/**
 * A command nobody follows live runs as one synchronous session command: the daemon answers when it ended,
 * with the encoded output (one request instead of the exec, the log stream and the exit code). Should the
 * answer lack part of it, the log is read again before giving up.
 */
async function runInOneRequest(lease: LeaseSandbox, run: SessionRun, options: WrappedRun): Promise<WrappedOutcome> {
  const { session, line, header, output } = run;
  try {
    const ended = await lease.sandbox.process.executeSessionCommand(session, { command: line, runAsync: false });
    output.replay(ended.stdout ?? "");
    if (output.end === undefined) {
      const log = await withRetry(() => lease.sandbox.process.getSessionCommandLogs(session, ended.cmdId), options.what);
      output.replay(log.stdout ?? "");
    }
    if (output.end === undefined)
      throw new OutpostError(
        "provider",
        `Could not ${options.what}: the command ended (exit code ${String(ended.exitCode)}) without the rest of its output. ` +
          "Run it again; check the disk space of the sandbox (output goes through files in the lease scratch directory).",
        { details: { incomplete: true } },
      );
    return { start: header.start ?? { missing: "executable" }, status: output.end.status };
  } catch (error) {
    throw mapDaytonaError(error, options.what);
  }
}

/**
 * One bulk upload per batch. The daemon may write a batch's files in any order, which FramedInput allows
 * for: a batch's marker only ever names a frame an earlier batch carried, and `end` holds the frame count.
 */
async function writeFrames(lease: LeaseSandbox, files: readonly InputFrameFile[], what: string): Promise<void> {
  // A frame the API refused is the platform's failure (mapped), not a host file's.
  await lease.sandbox.fs.uploadFiles(files.map((file) => ({ source: file.content, destination: file.path }))).catch((error: unknown) => {
    throw mapDaytonaError(error, what);
  });
}

/** Stops the process group and every descendant of the command's wrapper, then SIGKILLs them. */
async function killTree(lease: LeaseSandbox, started: () => WrappedOutcome["start"] | undefined): Promise<void> {
  const pid = await startedPid(started);
  const result = await lease.sandbox.process.executeCommand(shellCommand(["/bin/sh", "-c", KILL_TREE, "outpost-kill", String(pid)]));
  if (result.exitCode !== 0) throw new Error(`kill exited with ${result.exitCode}`);
}
