import type Docker from "dockerode";
import { ExecProcess } from "./exec-process.js";

/**
 * Keeps one exec of the lease started ahead of time, waiting for its command on stdin. Starting an exec is
 * most of a command's cost (the engine spawns a process into the container's namespaces): taken ready, the
 * command costs a write and a read. The next one starts once the taken command started (not before: the
 * two would compete for the machine), so it is made while that command runs (the agent's turn), and the
 * capture after the turn finds it ready.
 */
export class StandbyExec {
  private next: Promise<ExecProcess> | undefined;
  private closed = false;

  constructor(private readonly container: Docker.Container) {}

  /** Starts the standby unless one is there (or the lease is closing). */
  warm(): void {
    if (this.closed || this.next !== undefined) return;
    const next = ExecProcess.spawn(this.container);
    // A standby that could not start is not an error: the command that wanted it starts its own exec.
    next.catch(() => undefined);
    this.next = next;
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
