import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { CommandLog } from "./command-log.js";
import { daemonArgv } from "./daemon-command-line.js";

export type { LogEntry, LogStream } from "./command-log.js";

/**
 * A command outside any session (`/process/execute`): as the daemon runs it (daytonaio/daytona
 * `apps/daemon/pkg/toolbox/process/execute/execute.go`), a program started from the words of its line with no
 * shell (see daemonArgv), in a process group of its own, stdout and stderr into one buffer. A program that
 * cannot start answers exit code -1 with Go's error text as its output.
 */
export class DoubleCommand extends CommandLog {
  private readonly child: ChildProcess | undefined;
  /** Go's `cmd.Start()` error text when the program could not start. */
  startFailure: string | undefined;

  constructor(id: string, command: string, cwd: string, env: Record<string, string>) {
    super(id, command);
    const [program, ...args] = daemonArgv(command);
    if (!existsSync(cwd)) {
      this.child = undefined;
      this.failToStart(`chdir ${cwd}: no such file or directory`);
      return;
    }
    // `detached`: Setpgid, so a stop or a timeout ends it with everything it started.
    this.child = spawn(program!, args, { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    this.child.once("error", (error: NodeJS.ErrnoException) => this.failToStart(goStartError(program!, error)));
    const drained = (["stdout", "stderr"] as const).map(
      (name) =>
        new Promise<void>((resolve) => {
          const stream = this.child![name];
          if (stream === null) return resolve();
          stream.on("data", (chunk: Buffer) => this.emit({ stream: name, data: chunk }));
          stream.on("close", () => resolve());
        }),
    );
    const exited = new Promise<number>((resolve) => {
      this.child!.once("exit", (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    });
    void Promise.all([exited, ...drained]).then(([code]) => this.finish(code));
  }

  /** Signals the command's whole process group (a stopped or deleted sandbox leaves nothing running). */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    if (this.ended || this.child?.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // Already gone.
    }
  }

  private failToStart(message: string): void {
    this.startFailure = message;
    this.finish(-1);
  }
}

/** The text Go's os/exec gives for a program that did not start (LookPath without a slash, fork/exec with one). */
function goStartError(program: string, error: NodeJS.ErrnoException): string {
  const reason = error.code === "EACCES" ? "permission denied" : "no such file or directory";
  if (!program.includes("/") && error.code === "ENOENT") return `exec: "${program}": executable file not found in $PATH`;
  return `fork/exec ${program}: ${reason}`;
}
