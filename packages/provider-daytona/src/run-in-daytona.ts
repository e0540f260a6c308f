import { FRAMED_COMMAND_WRAPPER, FramedInput, inputFailure, KILL_TREE, startedPid, startFeed, WrapperHeader } from "@outpost/plugin-utils";
import type { FeedWatch, InputFrameFile, WrappedOutcome, WrappedRun } from "@outpost/plugin-utils";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapDaytonaError } from "./map-daytona-error.js";
import { sessionLine, shellCommand } from "./shell-words.js";

/** Runs one process as a session command through FRAMED_COMMAND_WRAPPER, in a session of its own (see SessionPool). */
export async function runInDaytona(lease: LeaseSandbox, options: WrappedRun): Promise<WrappedOutcome> {
  options.guard.check();
  const header = new WrapperHeader(options.onStdout);
  const input = options.feed === undefined ? "-" : `${lease.scratch}/${lease.nextName("in")}`;
  const wrapped = shellCommand(["/bin/sh", "-c", FRAMED_COMMAND_WRAPPER, "outpost", options.directory, input, ...options.argv]);
  const line = sessionLine({ ...lease.variables, ...options.variables }, wrapped);
  const session = await lease.sessions.take().catch((error: unknown) => {
    throw mapDaytonaError(error, options.what);
  });
  const run: SessionRun = { session, line, input, header };
  try {
    return options.unwatched ? await runInOneRequest(lease, run, options) : await runFollowed(lease, run, options);
  } finally {
    lease.sessions.close(session);
  }
}

interface SessionRun {
  readonly session: string;
  readonly line: string;
  /** The wrapper's input directory, or `-`. */
  readonly input: string;
  readonly header: WrapperHeader;
}

/**
 * An async session command: the SDK's websocket log stream delivers stdout and stderr apart as they come,
 * and the exit code is read once the stream closed. When the guard fires, the process tree is killed by a
 * second command (never the sandbox), and the guard's error is thrown once the process is gone.
 */
async function runFollowed(lease: LeaseSandbox, run: SessionRun, options: WrappedRun): Promise<WrappedOutcome> {
  const { session, line, input, header } = run;
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
    await Promise.race([process.getSessionCommandLogs(session, cmdId, header.push, options.onStderr), abandoned]);
    const status = await exitCode(lease, session, cmdId);
    watch.exited = true;
    await killing;
    options.guard.check();
    if (watch.failure !== undefined) throw inputFailure(watch.failure, options.what);
    return { start: header.start ?? { missing: "executable" }, status };
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
 * with stdout and stderr apart (one request instead of the exec, the log stream and the exit code).
 */
async function runInOneRequest(lease: LeaseSandbox, run: SessionRun, options: WrappedRun): Promise<WrappedOutcome> {
  const { session, line, header } = run;
  try {
    const ended = await lease.sandbox.process.executeSessionCommand(session, { command: line, runAsync: false });
    if (typeof ended.exitCode !== "number") throw new Error(`the command ${ended.cmdId} ended without an exit code`);
    header.push(ended.stdout ?? "");
    options.onStderr(ended.stderr ?? "");
    return { start: header.start ?? { missing: "executable" }, status: ended.exitCode };
  } catch (error) {
    throw mapDaytonaError(error, options.what);
  }
}

/** The exit code, once the daemon recorded it (the log stream closes as the command ends). */
async function exitCode(lease: LeaseSandbox, session: string, cmdId: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const command = await lease.sandbox.process.getSessionCommand(session, cmdId);
    if (typeof command.exitCode === "number") return command.exitCode;
    if (attempt > 600) throw new Error(`the command ${cmdId} never reported an exit code`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(20 * (attempt + 1), 200)));
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
