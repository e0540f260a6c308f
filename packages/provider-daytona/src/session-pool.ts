import { randomBytes } from "node:crypto";
import type { Sandbox } from "@daytonaio/sdk";

/** A fresh, unguessable session name. */
export function sessionName(): string {
  return `outpost-${randomBytes(6).toString("hex")}`;
}

/**
 * The lease's process sessions. A Daytona session is one shell that runs its commands one after the other,
 * so each command takes an idle session (opening one when none is idle) and gives it back once it is known
 * to have ended: commands of one lease run side by side, none queued behind another.
 */
export class SessionPool {
  private readonly idle: string[];

  constructor(
    private readonly sandbox: Sandbox,
    first: string,
  ) {
    this.idle = [first];
  }

  async take(): Promise<string> {
    const idle = this.idle.pop();
    if (idle !== undefined) return idle;
    const name = sessionName();
    await this.sandbox.process.createSession(name);
    return name;
  }

  /** The session's command ended (its exit code was read): the next command may use it. */
  give(name: string): void {
    this.idle.push(name);
  }

  /** The session's command may still be running: it never serves again (deleted in the background). */
  drop(name: string): void {
    void this.sandbox.process.deleteSession(name).catch(() => undefined);
  }
}
