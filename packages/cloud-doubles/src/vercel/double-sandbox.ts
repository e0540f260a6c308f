import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { killMarkedProcesses } from "@outpost/plugin-utils";
import { DoubleProcess, SESSION_MARKER } from "./double-process.js";

export type SessionStatus = "pending" | "running" | "stopping" | "stopped" | "failed" | "aborted" | "snapshotting";

/** The network policy as the API reports it (NetworkPolicyResponseValidator). */
export type ApiNetworkPolicy =
  | { mode: "allow-all" }
  | { mode: "deny-all" }
  | { mode: "custom"; allowedDomains?: string[]; allowedCIDRs?: string[]; deniedCIDRs?: string[] };

export interface SandboxSettings {
  readonly name: string;
  readonly persistent: boolean;
  readonly vcpus: number;
  readonly timeout: number;
  readonly region: string;
  readonly runtime?: string;
  readonly image?: string;
  readonly env: Record<string, string>;
  readonly tags?: Record<string, string>;
  readonly networkPolicy?: ApiNetworkPolicy;
}

export interface DoubleCommand {
  readonly id: string;
  readonly name: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly process: DoubleProcess;
}

let counter = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++counter).toString(36).padStart(4, "0")}`;

/** One session (a VM boot) of a sandbox: its real processes, ended by stop, delete or its timeout. */
export class DoubleSession {
  readonly id = nextId("sbx_session");
  status: SessionStatus = "running";
  readonly requestedAt = Date.now();
  readonly startedAt = Date.now();
  stoppedAt: number | undefined;
  requestedStopAt: number | undefined;
  timeout: number;
  readonly commands = new Map<string, DoubleCommand>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly sandbox: DoubleSandbox,
    timeout: number,
  ) {
    this.timeout = timeout;
    this.arm();
  }

  /** (Re)starts the lifetime timer: a session stops by itself at requestedAt + timeout, as on Vercel. */
  arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.sandbox.stop(), Math.max(0, this.startedAt + this.timeout - Date.now()));
    this.timer.unref();
  }

  run(command: string, args: readonly string[], cwd: string, env: Record<string, string>, timeoutMs?: number): DoubleCommand {
    const environment: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: this.sandbox.home,
      USER: "vercel-sandbox",
      ...this.sandbox.settings.env,
      ...env,
      [SESSION_MARKER]: this.id,
    };
    const entry = { id: nextId("cmd"), name: command, args, cwd, process: new DoubleProcess(command, args, cwd, environment, timeoutMs) };
    this.commands.set(entry.id, entry);
    return entry;
  }

  /** Ends every process of the session, descendants that left their group included. */
  async end(status: SessionStatus): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    if (this.status === "stopped" || this.status === "aborted") return;
    this.requestedStopAt = Date.now();
    this.status = "stopping";
    // Followers learn first that the sandbox went away: a command killed by the stop must not look finished.
    for (const command of this.commands.values()) command.process.abandon();
    for (const command of this.commands.values()) command.process.signal(9);
    await killMarkedProcesses({ name: SESSION_MARKER, value: this.id });
    this.status = status;
    this.stoppedAt = Date.now();
  }
}

/** One sandbox of the double: a temporary directory tree standing for the VM's filesystem, and its sessions. */
export class DoubleSandbox {
  readonly createdAt = Date.now();
  updatedAt = Date.now();
  session: DoubleSession;
  readonly sessions: DoubleSession[] = [];
  /** The VM's working directory and the sandbox user's home, inside the sandbox's temporary directory. */
  readonly cwd: string;
  readonly home: string;
  gone = false;

  constructor(
    readonly settings: SandboxSettings,
    readonly directory: string,
  ) {
    this.cwd = join(directory, "vercel", "sandbox");
    this.home = join(directory, "home", "vercel-sandbox");
    this.session = this.boot();
  }

  async prepare(): Promise<void> {
    await mkdir(this.cwd, { recursive: true });
    await mkdir(this.home, { recursive: true });
  }

  boot(): DoubleSession {
    const session = new DoubleSession(this, this.settings.timeout);
    this.sessions.push(session);
    this.session = session;
    this.updatedAt = Date.now();
    return session;
  }

  /** Stops the current session; a sandbox that is not persistent loses its filesystem with it. */
  async stop(): Promise<void> {
    await this.session.end("stopped");
    this.updatedAt = Date.now();
    if (!this.settings.persistent) await this.destroy();
  }

  /** Deletes the sandbox: processes killed, filesystem removed, every later request answers 404. */
  async destroy(): Promise<void> {
    this.gone = true;
    await this.session.end("stopped");
    await rm(this.directory, { recursive: true, force: true });
  }
}
