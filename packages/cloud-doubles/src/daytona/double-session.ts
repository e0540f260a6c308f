import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { CommandLog } from "./command-log.js";
import { DoubleRefusal } from "./double-http.js";
import { LineLabeller } from "./line-labeller.js";
import { shellWord } from "./shell-word.js";

/** How often a running command's log files are read for followers (the daemon tails them too). */
const POLL_MS = 10;
/**
 * How long an ended command's output may still be on its way to the log files. The daemon reports the exit
 * code before its readers are done and reads the log once it sees it (polling every 50 ms); the double
 * waits for the readers this long at most (a process left running with the output open holds them).
 */
const LATE_OUTPUT_MS = 100;

interface Running {
  readonly log: CommandLog;
  /** The exit code, once reported (the output may still be arriving). */
  status?: number;
  readonly files: { readonly stdout: string; readonly stderr: string };
  readonly offsets: { stdout: number; stderr: number };
  /** The daemon's labelers, one per stream: the log gets whole lines (see LineLabeller). */
  readonly labellers: { readonly stdout: LineLabeller; readonly stderr: LineLabeller };
}

/**
 * The command as the daemon runs it in the session's shell: its output goes through two FIFOs, each copied
 * to its log file by a reader in the background; the exit code is reported as soon as the command ended,
 * and the shell then waits for both readers, which end only when every process holding the command's
 * output closed it. A process the command left running with its output open keeps the session busy.
 */
function wrap(command: string, id: string, files: { readonly stdout: string; readonly stderr: string }): string {
  const [out, err] = [shellWord(files.stdout), shellWord(files.stderr)];
  return [
    `{ sp=${out}.pipe; ep=${err}.pipe; rm -f "$sp" "$ep"; mkfifo "$sp" "$ep" || exit 1`,
    `cat "$sp" >${out} 3>&- & r1=$!; cat "$ep" >${err} 3>&- & r2=$!`,
    `{ ${command}; } >"$sp" 2>"$ep" 3>&-; printf 'S %s %s\\n' ${id} "$?" >&3`,
    `wait "$r1" "$r2"; rm -f "$sp" "$ep"; printf 'D %s\\n' ${id} >&3; }`,
    "",
  ].join("\n");
}

/**
 * One process session as the daemon keeps it: a long-lived shell reading commands on its stdin, each run
 * *in* that shell, one after the other, as a brace group whose output goes to the command's log files (see `wrap`). So,
 * as on the platform: what a command changes (working directory, variables) the next one sees; a command
 * that reads stdin reads the commands queued behind it; one that `exec`s replaces the session's shell, never
 * reports an exit code, and the session takes no more commands; one that leaves a process running with its
 * output open keeps the session busy until that process closes it. Exit codes come back on the shell's fd 3,
 * which no command inherits.
 */
export class DoubleSession {
  private readonly shell: ChildProcess;
  private readonly commands = new Map<string, CommandLog>();
  private readonly running = new Map<string, Running>();
  private timer: NodeJS.Timeout | undefined;
  private alive = true;
  /** Read into by every poll of the log files. */
  private readonly buffer = Buffer.alloc(64 * 1024);

  constructor(
    readonly id: string,
    private readonly directory: string,
    cwd: string,
    env: Record<string, string>,
  ) {
    mkdirSync(directory, { recursive: true });
    this.shell = spawn("/bin/sh", [], { cwd, env, detached: true, stdio: ["pipe", "ignore", "ignore", "pipe"] });
    this.shell.stdin?.on("error", () => undefined);
    let pending = "";
    (this.shell.stdio[3] as Readable).on("data", (chunk: Buffer) => {
      pending += chunk.toString("utf8");
      for (let newline = pending.indexOf("\n"); newline !== -1; newline = pending.indexOf("\n")) {
        const [kind, id, status] = pending.slice(0, newline).split(" ");
        pending = pending.slice(newline + 1);
        if (kind === "S") this.ended(id ?? "", Number(status));
        else this.drained(id ?? "");
      }
    });
    this.shell.once("exit", () => this.gone());
    this.shell.once("error", () => this.gone());
  }

  /** Queues `command` in the session's shell (as the daemon writes it to the shell's stdin). */
  execute(command: string): CommandLog {
    if (!this.alive || this.shell.stdin?.writable !== true)
      throw new DoubleRefusal(400, "BAD_REQUEST", `failed to write command: the shell of session ${this.id} has exited`);
    const id = randomUUID();
    const log = new CommandLog(id, command);
    const files = { stdout: join(this.directory, `${id}.out`), stderr: join(this.directory, `${id}.err`) };
    this.commands.set(id, log);
    const labeller = (stream: "stdout" | "stderr") => new LineLabeller((data) => log.emit({ stream, data }));
    this.running.set(id, {
      log,
      files,
      offsets: { stdout: 0, stderr: 0 },
      labellers: { stdout: labeller("stdout"), stderr: labeller("stderr") },
    });
    this.shell.stdin.write(wrap(command, id, files));
    this.timer ??= setInterval(() => this.running.forEach((entry) => this.drain(entry)), POLL_MS).unref();
    return log;
  }

  get(commandId: string): CommandLog | undefined {
    return this.commands.get(commandId);
  }

  /**
   * Kills the session's process group, as the daemon does on delete: the shell and what its commands left
   * running in the background die with it (only a process that left the group, `setsid`, survives).
   */
  kill(): void {
    if (this.alive && this.shell.pid !== undefined) {
      try {
        process.kill(-this.shell.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    this.gone();
  }

  /** Deleted: killed, its logs gone with it. */
  remove(): void {
    this.kill();
    rmSync(this.directory, { recursive: true, force: true });
  }

  private ended(id: string, status: number): void {
    const entry = this.running.get(id);
    if (entry === undefined) return;
    entry.status = Number.isInteger(status) ? status : 1;
    setTimeout(() => this.drained(id), LATE_OUTPUT_MS).unref();
  }

  /** Every reader of the command's output is done (or waited for long enough): its log is complete. */
  private drained(id: string): void {
    const entry = this.running.get(id);
    if (entry?.status === undefined) return;
    this.drain(entry);
    entry.labellers.stdout.end();
    entry.labellers.stderr.end();
    this.running.delete(id);
    entry.log.finish(entry.status);
    this.idle();
  }

  private gone(): void {
    this.alive = false;
    for (const entry of this.running.values()) {
      this.drain(entry);
      entry.labellers.stdout.end();
      entry.labellers.stderr.end();
      entry.log.finish(undefined);
    }
    this.running.clear();
    this.idle();
  }

  private idle(): void {
    if (this.running.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Hands followers what the command's log files gained since the last read. */
  private drain(entry: Running): void {
    for (const stream of ["stdout", "stderr"] as const) {
      let fd: number;
      try {
        fd = openSync(entry.files[stream], "r");
      } catch {
        continue; // not started yet (or the session was removed)
      }
      try {
        for (let read = 1; read > 0;) {
          read = readSync(fd, this.buffer, 0, this.buffer.length, entry.offsets[stream]);
          entry.offsets[stream] += read;
          if (read > 0) entry.labellers[stream].push(Buffer.from(this.buffer.subarray(0, read)));
        }
      } finally {
        closeSync(fd);
      }
    }
  }
}
