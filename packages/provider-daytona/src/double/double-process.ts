import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";

export type LogStream = "stdout" | "stderr";

export interface LogEntry {
  readonly stream: LogStream;
  readonly data: Buffer;
}

/** One session command of a double sandbox: a real process, its logs (kept for late readers) and exit code. */
export class DoubleCommand {
  readonly logs: LogEntry[] = [];
  exitCode: number | undefined;
  readonly done: Promise<void>;
  private readonly listeners = new Set<(entry: LogEntry | undefined) => void>();
  private readonly child: ChildProcess;

  constructor(
    readonly id: string,
    readonly command: string,
    cwd: string,
    env: Record<string, string>,
  ) {
    // The daemon runs a session command through a shell; each leads its own process group here.
    this.child = spawn("/bin/sh", ["-c", command], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    const drained = (["stdout", "stderr"] as const).map(
      (name) =>
        new Promise<void>((resolve) => {
          const stream = this.child[name];
          if (stream === null) return resolve();
          stream.on("data", (chunk: Buffer) => this.emit({ stream: name, data: chunk }));
          stream.on("close", () => resolve());
        }),
    );
    const exited = new Promise<number>((resolve) => {
      this.child.once("error", () => resolve(127));
      this.child.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    });
    this.done = Promise.all([exited, ...drained]).then(([code]) => {
      this.exitCode = code;
      for (const listener of this.listeners) listener(undefined);
      this.listeners.clear();
    });
  }

  /** Replays the logs so far, then follows; `undefined` marks the end. Returns an unsubscribe function. */
  follow(listener: (entry: LogEntry | undefined) => void): () => void {
    for (const entry of this.logs) listener(entry);
    if (this.exitCode !== undefined) {
      listener(undefined);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Kills the command's whole process group (a stopped or deleted sandbox leaves nothing running). */
  kill(): void {
    if (this.exitCode !== undefined || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }

  private emit(entry: LogEntry): void {
    this.logs.push(entry);
    for (const listener of this.listeners) listener(entry);
  }
}
