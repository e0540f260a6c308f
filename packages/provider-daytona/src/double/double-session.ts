import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { closeSync, mkdirSync, openSync, readSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { CommandLog } from "./command-log.js";
import { DoubleRefusal } from "./double-http.js";

/** How often a running command's log files are read for followers (the daemon tails them too). */
const POLL_MS = 10;

interface Running {
  readonly log: CommandLog;
  readonly files: { readonly stdout: string; readonly stderr: string };
  readonly offsets: { stdout: number; stderr: number };
}

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * One process session as the daemon keeps it: a long-lived shell reading commands on its stdin, each run
 * *in* that shell, one after the other, as a brace group whose output goes to the command's log files. So,
 * as on the platform: what a command changes (working directory, variables) the next one sees; a command
 * that reads stdin reads the commands queued behind it; one that `exec`s replaces the session's shell, never
 * reports an exit code, and the session takes no more commands. Exit codes come back on the shell's fd 3,
 * which no command inherits.
 */
export class DoubleSession {
  private readonly shell: ChildProcess;
  private readonly commands = new Map<string, CommandLog>();
  private readonly running = new Map<string, Running>();
  private timer: NodeJS.Timeout | undefined;
  private alive = true;

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
        const [id, status] = pending.slice(0, newline).split(" ");
        pending = pending.slice(newline + 1);
        this.ended(id ?? "", Number(status));
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
    this.running.set(id, { log, files, offsets: { stdout: 0, stderr: 0 } });
    this.shell.stdin.write(`{ ${command}; } >${quote(files.stdout)} 2>${quote(files.stderr)} 3>&-; printf '%s %s\\n' ${id} "$?" >&3\n`);
    this.timer ??= setInterval(() => this.running.forEach((entry) => this.drain(entry)), POLL_MS).unref();
    return log;
  }

  get(commandId: string): CommandLog | undefined {
    return this.commands.get(commandId);
  }

  /** Ends the shell and everything in its process group. */
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
    this.drain(entry);
    this.running.delete(id);
    entry.log.finish(Number.isInteger(status) ? status : 1);
    this.idle();
  }

  private gone(): void {
    this.alive = false;
    for (const entry of this.running.values()) {
      this.drain(entry);
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
        const buffer = Buffer.alloc(64 * 1024);
        for (let read = 1; read > 0;) {
          read = readSync(fd, buffer, 0, buffer.length, entry.offsets[stream]);
          entry.offsets[stream] += read;
          entry.log.emit({ stream, data: Buffer.from(buffer.subarray(0, read)) });
        }
      } finally {
        closeSync(fd);
      }
    }
  }
}
