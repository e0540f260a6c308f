import type Docker from "dockerode";
import { ExecProcess } from "./exec-process.js";

/** A command running this long is not about to end: the next standby can start beside it. */
export const WARM_AFTER_MS = 250;

/**
 * Keeps one exec of the lease started ahead of time, waiting for its command on stdin. Starting an exec is
 * most of a command's cost (the engine spawns a process into the container's namespaces): taken ready, the
 * command costs a write and a read. The next one starts while a command runs long (the agent's turn), so
 * the capture after the turn finds it ready. Not during a short command: the engine handles an exec's start
 * and another's exit one after the other, so a standby starting then delays that command's end by as much.
 */
export class StandbyExec {
  private next: Promise<ExecProcess> | undefined;
  private closed = false;

  constructor(private readonly container: Docker.Container) {}

  /** Starts the standby unless one is there (or the lease is closing). */
  warm(): void {
    if (this.closed || this.next !== undefined) return;
    const next = ExecProcess.spawn(this.container).then((process) => {
      process.idle();
      return process;
    });
    // A standby that could not start is not an error: the command that wanted it starts its own exec.
    next.catch(() => undefined);
    this.next = next;
  }

  /** Starts the next standby once a command has run for WARM_AFTER_MS, unless it ended before (`ended`). */
  warmDuring(ended: Promise<unknown>): void {
    if (this.closed) return;
    const timer = setTimeout(() => this.warm(), WARM_AFTER_MS);
    // The timer never keeps the process alive, and goes with the command.
    timer.unref();
    const clear = () => clearTimeout(timer);
    ended.then(clear, clear);
  }

  /** The standby when it started and still waits; undefined otherwise. The caller warms the next one. */
  async take(): Promise<ExecProcess | undefined> {
    const next = this.next;
    this.next = undefined;
    const process = await next?.catch(() => undefined);
    if (process === undefined || process.ended) return undefined;
    return process;
  }

  /** No more standbys; the waiting one is dropped (release removes the container anyway). */
  close(): void {
    this.closed = true;
    const next = this.next;
    this.next = undefined;
    void next?.then(
      (process) => process.discard(),
      () => undefined,
    );
  }
}
