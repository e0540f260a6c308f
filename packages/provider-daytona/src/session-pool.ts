import { randomBytes } from "node:crypto";
import type { Sandbox } from "@daytonaio/sdk";

/** A fresh, unguessable session name. */
export function sessionName(): string {
  return `outpost-${randomBytes(6).toString("hex")}`;
}

/**
 * The lease's process sessions. A Daytona session is one shell that runs its commands one after the other,
 * and stays busy after a command ended for as long as a process it left running holds its output. So each
 * command gets a session of its own, closed once the command is done; the next one is opened while the
 * current command runs, so no command waits for a session to open (the lease's first comes with acquire).
 */
export class SessionPool {
  private spare: Promise<string> | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    first: string,
  ) {
    this.spare = Promise.resolve(first);
  }

  /**
   * The session opened ahead (a new one when there is none or it could not be opened). The next opens a
   * turn of the event loop later: the caller's command request, sent as soon as this resolves, goes first.
   */
  async take(): Promise<string> {
    const ready = this.spare ?? this.open();
    this.spare = undefined;
    setImmediate(() => {
      if (this.spare !== undefined) return;
      this.spare = this.open();
      this.spare.catch(() => undefined);
    });
    return ready.catch(() => this.open());
  }

  /** The command is done with its session, ended or abandoned: it is closed in the background. */
  close(name: string): void {
    void this.sandbox.process.deleteSession(name).catch(() => undefined);
  }

  private async open(): Promise<string> {
    const name = sessionName();
    await this.sandbox.process.createSession(name);
    return name;
  }
}
