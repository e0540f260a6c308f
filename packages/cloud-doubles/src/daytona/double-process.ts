import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { CommandLog } from "./command-log.js";

export type { LogEntry, LogStream } from "./command-log.js";

/** A command outside any session (`/process/execute`): a real process of its own, through a shell. */
export class DoubleCommand extends CommandLog {
  private readonly child: ChildProcess;

  constructor(id: string, command: string, cwd: string, env: Record<string, string>) {
    super(id, command);
    // Each leads its own process group here, so a stop ends it with everything it started.
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
    void Promise.all([exited, ...drained]).then(([code]) => this.finish(code));
  }

  /** Kills the command's whole process group (a stopped or deleted sandbox leaves nothing running). */
  kill(): void {
    if (this.ended || this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
