import { spawn, type ChildProcess } from "node:child_process";
import { constants } from "node:os";
import { StringDecoder } from "node:string_decoder";
import type { Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import { DEFAULT_RETAIN_BYTES, OutpostError, abortError } from "@outpost/core";
import type { Command, CommandChannel, CommandResult } from "@outpost/core";
import { processTree } from "./process-tree.js";
import { stopProcessTree } from "./stop-process-tree.js";
import { TailBuffer } from "@outpost/plugin-utils";

export interface ProcessLaunch {
  readonly command: Command;
  /** Absolute working directory, already checked to exist. */
  readonly directory: string;
  readonly environment: Readonly<Record<string, string>>;
  /** Milliseconds between SIGTERM and SIGKILL when the tree is stopped. */
  readonly killGraceMs: number;
}

// Output written by a background process that outlives the command is not waited for past this.
const PIPE_DRAIN_MS = 250;

/** One command running as a host process that leads its own process group. */
export class LocalProcess {
  readonly result: Promise<CommandResult>;
  private readonly child: ChildProcess;
  private failure: OutpostError | undefined;
  private stopping: Promise<void> | undefined;

  constructor(private readonly launch: ProcessLaunch) {
    const { command } = launch;
    // detached: the child calls setsid(), so its pid is also the id of a fresh process group.
    this.child = spawn(command.executable, [...(command.arguments ?? [])], {
      cwd: launch.directory,
      env: launch.environment,
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.result = this.run();
  }

  /** Kills the whole tree; while the command runs, its result rejects with `failure`. */
  stop(failure: OutpostError): Promise<void> {
    this.failure ??= failure;
    const pid = this.child.pid;
    if (pid === undefined) return Promise.resolve();
    this.stopping ??= stopProcessTree(pid, this.launch.killGraceMs, this.leaderRunning());
    return this.stopping;
  }

  /** True when processes of the command's group outlived it (e.g. started in the background). */
  leftBehind(): boolean {
    return this.child.pid !== undefined && !this.leaderRunning() && groupMembers(this.child.pid).size > 0;
  }

  private leaderRunning(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  private async run(): Promise<CommandResult> {
    const { command } = this.launch;
    const retain = command.retain ?? DEFAULT_RETAIN_BYTES;
    const tails = { stdout: new TailBuffer(retain), stderr: new TailBuffer(retain) };
    const started = new Promise<void>((resolve, reject) => {
      this.child.once("spawn", resolve);
      this.child.once("error", reject);
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      this.child.once("exit", (code, signal) => resolve({ code, signal })),
    );
    const drained = Promise.all([
      this.collect("stdout", this.child.stdout!, tails.stdout),
      this.collect("stderr", this.child.stderr!, tails.stderr),
    ]);
    try {
      await started;
    } catch (error) {
      throw new OutpostError(
        "process",
        `Could not start ${JSON.stringify(command.executable)}: ${(error as Error).message}. Check that the executable exists and is on PATH.`,
        {
          cause: error,
          details: { executable: command.executable },
        },
      );
    }
    // After a successful spawn, 'error' only reports a failed kill(); the tree stop handles that itself.
    this.child.on("error", () => undefined);
    const cancel = this.watchDeadlineAndSignal();
    this.feedStdin();
    try {
      const { code, signal } = await exited;
      // The drain wait is cancelled once the pipes close, so no timer outlives the run (issue 19).
      const drainWait = new AbortController();
      await Promise.race([drained, sleep(PIPE_DRAIN_MS, undefined, { signal: drainWait.signal, ref: false }).catch(() => undefined)]);
      drainWait.abort();
      if (this.stopping !== undefined) await this.stopping;
      if (this.failure !== undefined) throw this.failure;
      const status = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      return { status, stdout: tails.stdout.text(), stderr: tails.stderr.text() };
    } finally {
      cancel();
      command.input?.unpipe(this.child.stdin!);
      this.child.stdout!.destroy();
      this.child.stderr!.destroy();
    }
  }

  private collect(channel: CommandChannel, stream: Readable, tail: TailBuffer): Promise<void> {
    const decoder = new StringDecoder("utf8");
    const observe = this.launch.command.observe;
    const deliver = (text: string) => {
      if (observe === undefined || text === "") return;
      try {
        observe(channel, text);
      } catch {
        // The contract: an observer's exception never breaks the run.
      }
    };
    stream.on("data", (chunk: Buffer) => {
      tail.push(chunk);
      deliver(decoder.write(chunk));
    });
    return new Promise((resolve) => {
      stream.once("close", () => {
        deliver(decoder.end());
        resolve();
      });
    });
  }

  private feedStdin(): void {
    const { stdin, input } = this.launch.command;
    const pipe = this.child.stdin!;
    // EPIPE when the process exits without reading: not a failure of the command.
    pipe.on("error", () => undefined);
    if (stdin !== undefined) pipe.write(stdin);
    if (input === undefined) {
      pipe.end();
      return;
    }
    input.once("error", () => pipe.end());
    input.pipe(pipe);
  }

  private watchDeadlineAndSignal(): () => void {
    const { command } = this.launch;
    const what = `Command ${JSON.stringify(command.executable)}`;
    // Once the leader has exited the command is over: a late deadline or abort no longer fails it.
    const onAbort = () => void (this.leaderRunning() && this.stop(abortError(command.signal!, what)));
    command.signal?.addEventListener("abort", onAbort, { once: true });
    if (command.signal?.aborted) onAbort();
    const timer =
      command.deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            if (!this.leaderRunning()) return;
            void this.stop(
              new OutpostError(
                "timeout",
                `${what} passed its deadline of ${command.deadlineMs} ms; it and every process it started were stopped. Raise deadlineMs or make the command finish sooner.`,
                {
                  details: { executable: command.executable, deadlineMs: command.deadlineMs },
                },
              ),
            );
          }, command.deadlineMs);
    return () => {
      if (timer !== undefined) clearTimeout(timer);
      command.signal?.removeEventListener("abort", onAbort);
    };
  }
}

function groupMembers(group: number): Set<number> {
  // One signal-0 probe answers the usual case (the group is empty) without a walk of /proc.
  if (!groupExists(group)) return new Set();
  return processTree([], [group]);
}

/** Whether any process (zombies included) is in the process group. */
function groupExists(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
