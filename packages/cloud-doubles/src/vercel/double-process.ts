import { spawn, type ChildProcess } from "node:child_process";
import { StringDecoder } from "node:string_decoder";
import { constants } from "node:os";

export type LogStream = "stdout" | "stderr";
export interface LogEntry {
  readonly stream: LogStream;
  readonly data: string;
}

/** The variable that marks every process of a double's session, so stop/delete find escaped descendants. */
export const SESSION_MARKER = "OUTPOST_VERCEL_DOUBLE_SESSION";

/** One real process of a double sandbox: its logs (kept for late readers) and exit status. */
export class DoubleProcess {
  readonly logs: LogEntry[] = [];
  exitCode: number | null = null;
  readonly startedAt = Date.now();
  finishedAt: number | undefined;
  readonly done: Promise<number>;
  private readonly listeners = new Set<(entry: LogEntry | undefined) => void>();
  private readonly child: ChildProcess;

  constructor(command: string, args: readonly string[], cwd: string, env: Record<string, string>, timeoutMs?: number) {
    this.child = spawn(command, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const timer = timeoutMs === undefined ? undefined : setTimeout(() => this.signal(constants.signals.SIGKILL), timeoutMs);
    timer?.unref();
    const streams: [LogStream, NodeJS.ReadableStream | null][] = [
      ["stdout", this.child.stdout],
      ["stderr", this.child.stderr],
    ];
    const drained = streams.map(
      ([name, stream]) =>
        new Promise<void>((resolve) => {
          if (stream === null) return resolve();
          const decoder = new StringDecoder("utf8");
          stream.on("data", (chunk: Buffer) => this.emit(name, decoder.write(chunk)));
          stream.on("close", () => {
            this.emit(name, decoder.end());
            resolve();
          });
        }),
    );
    const exited = new Promise<number>((resolve) => {
      this.child.once("error", () => resolve(127));
      this.child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    });
    this.done = Promise.all([exited, ...drained]).then(([code]) => {
      if (timer) clearTimeout(timer);
      this.exitCode = code;
      this.finishedAt = Date.now();
      for (const listener of this.listeners) listener(undefined);
      this.listeners.clear();
      return code;
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends `signal` to the process group the command leads. */
  signal(signal: number): void {
    if (this.child.pid === undefined || this.exitCode !== null) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // Already gone.
    }
  }

  /** Replays the logs so far, then follows new ones; `undefined` marks the end. Returns the unsubscribe. */
  follow(listener: (entry: LogEntry | undefined) => void): () => void {
    for (const entry of this.logs) listener(entry);
    if (this.exitCode !== null) {
      listener(undefined);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the logs of a process whose sandbox vanished: followers get `undefined` at once. */
  abandon(): void {
    for (const listener of this.listeners) listener(undefined);
    this.listeners.clear();
  }

  private emit(stream: LogStream, data: string): void {
    if (data === "") return;
    const entry = { stream, data };
    this.logs.push(entry);
    for (const listener of this.listeners) listener(entry);
  }
}
