import { randomBytes } from "node:crypto";
import type { Sandbox } from "@daytonaio/sdk";
import { withRetry } from "./with-retry.js";

/** A fresh, unguessable session name. */
export function sessionName(): string {
  return `outpost-${randomBytes(6).toString("hex")}`;
}

/**
 * The lease's process sessions. A Daytona session is one shell that runs its commands one after the other,
 * so each running command has a session of its own. Sessions are never deleted before release: deleting a
 * session kills what its commands started in the background (the daemon kills the session's process
 * group), and background work must live until release(), as on every other provider. A command that ended
 * with its trailer gives its session back (its output went to files, so nothing it left running keeps the
 * session busy); one that failed or was stopped leaves its session aside. A spare is opened while a command
 * runs, so the next command rarely waits for a session to open.
 */
export class SessionPool {
  private readonly idle: string[] = [];
  private spare: Promise<string> | undefined;

  constructor(
    private readonly sandbox: Sandbox,
    first: string,
  ) {
    this.idle.push(first);
  }

  /**
   * An idle session, else the spare (a new one when there is none or it could not be opened). A new spare
   * opens a turn of the event loop later, so the caller's command request goes first.
   */
  async take(): Promise<string> {
    const ready = this.idle.pop();
    if (ready !== undefined) return ready;
    const spare = this.spare ?? this.open();
    this.spare = undefined;
    setImmediate(() => {
      if (this.spare !== undefined || this.idle.length > 0) return;
      this.spare = this.open();
      this.spare.catch(() => undefined);
    });
    return spare.catch(() => this.open());
  }

  /** The command ended cleanly: its session takes the next one. */
  giveBack(name: string): void {
    this.idle.push(name);
  }

  private async open(): Promise<string> {
    const name = sessionName();
    await withRetry(() => this.sandbox.process.createSession(name), "open a Daytona process session");
    return name;
  }
}
