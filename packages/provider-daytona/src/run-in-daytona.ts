import { Readable } from "node:stream";
import { FRAMED_COMMAND_WRAPPER, FramedInput, inputFailure, KILL_TREE, startFeed } from "@outpost/plugin-utils";
import type { FeedWatch, InputFrameFile, WrappedOutcome, WrappedRun } from "@outpost/plugin-utils";
import { OutpostError } from "@outpost/core";
import { ENCODED_OUTPUT_WRAPPER, KILL_BY_PID_FILE } from "./encoded-output-wrapper.js";
import { EncodedOutput } from "./encoded-output.js";
import { daemonCommand } from "./daemon-words.js";
import { followOutput } from "./follow-output.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapDaytonaError } from "./map-daytona-error.js";
import { sessionLine, shellCommand } from "./shell-words.js";
import { StreamedInput } from "./streamed-input.js";
import { withRetry } from "./with-retry.js";
import { WrapperStartReader } from "./wrapper-start.js";

// A transfer's input up to this size travels as one streamed upload while its script starts; a larger one as frames.
const WHOLE_INPUT_BYTES = 16 * 1024 * 1024;

/**
 * Runs one process as a session command: FRAMED_COMMAND_WRAPPER (directory, stdin frames, pid header)
 * inside ENCODED_OUTPUT_WRAPPER (output as hex lines that survive the daemon's line labelling), in a
 * session of its own (see SessionPool). Output someone follows streams over the log socket; output read at
 * the end (an unwatched command, a transfer script) comes with one synchronous request.
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
  const atEnd = options.unwatched === true || options.outputAtEnd === true;
  // Each run of the process has input and output files of its own (an input too large to send whole starts it again).
  const fresh = (): SessionRun => {
    const input = options.feed === undefined ? "-" : `${lease.scratch}/${lease.nextName("in")}`;
    const files = `${lease.scratch}/${lease.nextName("out")}`;
    const framed = ["/bin/sh", "-c", FRAMED_COMMAND_WRAPPER, "outpost", options.directory, input, ...options.argv];
    const wrapped = shellCommand(["/bin/sh", "-c", ENCODED_OUTPUT_WRAPPER, "outpost-output", files, atEnd ? "end" : "live", ...framed]);
    const line = sessionLine({ ...lease.variables, ...options.variables }, wrapped);
    return { line, input, files, header, output, delivered: () => delivered };
  };
  return atEnd ? runAtEnd(lease, fresh(), options, fresh) : runFollowed(lease, fresh(), options);
}

interface SessionRun {
  readonly line: string;
  /** The wrapper's input directory, or `-`. */
  readonly input: string;
  /** The wrapper's output files' base path (`.o`, `.e`, `.pid`). */
  readonly files: string;
  readonly header: WrapperStartReader;
  readonly output: EncodedOutput;
  delivered(): number;
}

/** Kills the command's tree when the guard fires; `abandoned` rejects when that kill failed. */
function stopper(lease: LeaseSandbox, run: SessionRun, options: WrappedRun) {
  let killFailed: ((error: unknown) => void) | undefined;
  const abandoned = new Promise<never>((_resolve, reject) => (killFailed = reject));
  abandoned.catch(() => undefined);
  let killing: Promise<void> | undefined;
  const stop = () => {
    killing ??= killTree(lease, run.files).catch(() => killFailed?.(options.guard.error));
  };
  options.guard.signal.addEventListener("abort", stop, { once: true });
  return {
    stop,
    abandoned,
    killed: () => killing,
    dispose: () => options.guard.signal.removeEventListener("abort", stop),
  };
}

/**
 * An async session command, its output followed live over the SDK's log stream (see followOutput). When the
 * guard fires, the process tree is killed by a second command (never the sandbox), and the guard's error is
 * thrown once the process is gone.
 */
async function runFollowed(lease: LeaseSandbox, run: SessionRun, options: WrappedRun): Promise<WrappedOutcome> {
  const { line, input, header, output } = run;
  const stopping = stopper(lease, run, options);
  const watch: FeedWatch = { failure: undefined, exited: false };
  try {
    const session = await lease.sessions.take();
    const { cmdId } = await lease.sandbox.process.executeSessionCommand(session, { command: line, runAsync: true });
    if (options.feed !== undefined)
      startFeed(options.feed, new FramedInput((frames) => writeFrames(lease, frames, options.what), input), watch, stopping.stop);
    const followed = { sandbox: lease.sandbox, session, cmdId, output, guard: options.guard, what: options.what, delivered: run.delivered };
    const end = await Promise.race([followOutput(followed), stopping.abandoned]);
    watch.exited = true;
    await stopping.killed();
    options.guard.check();
    if (watch.failure !== undefined) throw inputFailure(watch.failure, options.what);
    lease.sessions.giveBack(session);
    return { start: header.start ?? { missing: "executable" }, status: end.status };
  } catch (error) {
    watch.exited = true;
    if (options.guard.error !== undefined) throw options.guard.error;
    throw mapDaytonaError(error, options.what);
  } finally {
    stopping.dispose();
  }
}

/**
 * Output read at the end: one synchronous session command, which the daemon answers when it ended, with the
 * encoded output. A finite stdin is sent while the command starts, as it is written (see sendWhole); one
 * larger than a whole upload ends that command and streams into a new one (see StreamedInput). Should the
 * answer lack part of the output, the log is read again before giving up.
 */
async function runAtEnd(lease: LeaseSandbox, run: SessionRun, options: WrappedRun, fresh: () => SessionRun): Promise<WrappedOutcome> {
  const { line, header, output } = run;
  const sending = options.feed === undefined ? undefined : sendWhole(lease, run.input, options);
  const stopping = stopper(lease, run, options);
  let handedOn = false;
  try {
    const session = await lease.sessions.take();
    const request = lease.sandbox.process.executeSessionCommand(session, { command: line, runAsync: false });
    // Input that was not sent whole (too large, a failed feed, an upload the API refused) ends the command,
    // which would wait for it.
    sending?.sent.catch(() => stopping.stop());
    const ended = await Promise.race([request, stopping.abandoned]);
    const failure = await sending?.sent.then(
      () => undefined,
      (error: unknown) => error ?? new Error("the upload of the input failed"),
    );
    await stopping.killed();
    options.guard.check();
    if (failure !== undefined && sending !== undefined) {
      if (sending.input.feedFailure !== undefined) throw inputFailure(sending.input.feedFailure, options.what);
      if (!sending.input.overflowed) throw failure;
      const shape = await sending.input.shape;
      if (!("stream" in shape)) throw failure;
      handedOn = true;
      sending.stop(true);
      return await runFollowed(lease, fresh(), { ...options, feed: shape.stream });
    }
    // The encoded lines are all on stdout; a daemon that only fills the combined `output` has them there.
    output.replay(ended.stdout || ended.output || "");
    if (output.end === undefined) {
      const log = await withRetry(() => lease.sandbox.process.getSessionCommandLogs(session, ended.cmdId), options.what);
      output.replay(log.stdout || log.output || "");
    }
    if (output.end === undefined)
      throw new OutpostError(
        "provider",
        `Could not ${options.what}: the command ended (exit code ${String(ended.exitCode)}) without the rest of its output. ` +
          "Run it again; check the disk space of the sandbox (output goes through files in the lease scratch directory).",
        { details: { incomplete: true } },
      );
    lease.sessions.giveBack(session);
    return { start: header.start ?? { missing: "executable" }, status: output.end.status };
  } catch (error) {
    if (options.guard.error !== undefined) throw options.guard.error;
    throw mapDaytonaError(error, options.what);
  } finally {
    // Nothing keeps sending (an upload waiting for a marker, a feed waiting for its reader) once this ends.
    if (!handedOn) sending?.stop();
    stopping.dispose();
  }
}

interface WholeSend {
  readonly input: StreamedInput;
  /** All three uploads landed; fails when one failed or the input was not sent whole. */
  readonly sent: Promise<void>;
  /** Aborts the uploads and, unless the input is handed on, ends the feed. */
  stop(handingOn?: boolean): void;
}

/**
 * Sends a finite stdin as the frame `0` of the input directory, its marker `0.ok` and `end` (FramedInput's
 * layout), as three streamed uploads started at once (`uploadFileStream`, documented to take a Readable and
 * to send it with chunked encoding): the frame carries the input while it is written, and the markers'
 * contents follow as soon as its size is known. The command's reader takes the frame only once it has its
 * marker's size, whatever order or pace the daemon writes the files at.
 */
function sendWhole(lease: LeaseSandbox, input: string, options: WrappedRun): WholeSend {
  const streamed = new StreamedInput(WHOLE_INPUT_BYTES);
  options.feed!(streamed).then(
    () => void streamed.end(),
    (error: unknown) => streamed.failed(error),
  );
  const uploads = new AbortController();
  const abort = () => uploads.abort(options.guard.error);
  options.guard.signal.addEventListener("abort", abort, { once: true });
  const marker = (content: (size: number) => string) =>
    Readable.from(
      (async function* () {
        const shape = await streamed.shape;
        if (!("size" in shape)) throw new Error("the input is not sent whole");
        yield Buffer.from(content(shape.size));
      })(),
    );
  // A frame or marker the API refused is the platform's failure (mapped), not a host file's.
  const upload = (source: Readable, path: string) =>
    lease.sandbox.fs.uploadFileStream(source, path, { signal: uploads.signal }).catch((error: unknown) => {
      throw mapDaytonaError(error, options.what);
    });
  const sent = Promise.all([
    upload(streamed.frame, `${input}/0`),
    upload(
      marker((size) => `${size}\n`),
      `${input}/0.ok`,
    ),
    upload(
      marker(() => "1\n"),
      `${input}/end`,
    ),
  ]).then(() => undefined);
  sent.catch(() => undefined);
  return {
    input: streamed,
    sent,
    stop: (handingOn) => {
      options.guard.signal.removeEventListener("abort", abort);
      uploads.abort();
      if (handingOn !== true) streamed.destroy();
    },
  };
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

/** Stops the process group and every descendant of the command's wrapper (its pid from the pid file), then SIGKILLs them. */
async function killTree(lease: LeaseSandbox, files: string): Promise<void> {
  const result = await lease.sandbox.process.executeCommand(
    // No shell runs the line: the daemon splits it into argv itself (see daemonCommand), so sh is named.
    daemonCommand(["/bin/sh", "-c", KILL_BY_PID_FILE, "outpost-kill", `${files}.pid`, KILL_TREE]),
  );
  if (result.exitCode !== 0) throw new Error(`kill exited with ${result.exitCode}`);
}
