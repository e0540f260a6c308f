import { randomUUID } from "node:crypto";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { killMarkedProcesses, readPidCounter } from "@outpost/plugin-utils";
import type { CommandLog } from "./command-log.js";
import { DoubleCommand } from "./double-process.js";
import { DoubleSession } from "./double-session.js";
import { DoubleRefusal } from "./double-http.js";

export type SandboxState = "started" | "stopped" | "destroyed";

/** The create request fields the double keeps and reports back. */
export interface SandboxSpec {
  readonly name: string;
  readonly snapshot?: string;
  readonly user: string;
  readonly env: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly target: string;
  readonly cpu: number;
  readonly memory: number;
  readonly disk: number;
  readonly networkBlockAll: boolean;
  readonly networkAllowList?: string;
  readonly autoStopInterval: number;
  readonly autoArchiveInterval: number;
  readonly autoDeleteInterval: number;
  readonly public: boolean;
}

/**
 * One double sandbox: a directory on the host with `home` inside, sessions that are real
 * shells (see DoubleSession). Stopping or deleting kills every process; a stopped sandbox keeps its files.
 */
export class DoubleSandbox {
  readonly id = randomUUID();
  state: SandboxState = "started";
  readonly createdAt = new Date().toISOString();
  updatedAt = this.createdAt;
  private readonly sessions = new Map<string, DoubleSession>();
  /** Directories the file API made outside the sandbox's directory (its paths are the host's): gone with it. */
  private readonly outside = new Set<string>();
  private readonly loose = new Set<DoubleCommand>();
  // Where the pid counter stood before this sandbox's first process: stop reads only what came after.
  private readonly pidsBefore = readPidCounter();

  constructor(
    readonly spec: SandboxSpec,
    readonly directory: string,
  ) {}

  get home(): string {
    return join(this.directory, "home", this.spec.user);
  }

  /**
   * The image's WORKDIR, else the user's home (`@daytonaio/sdk` 0.218 `esm/Sandbox.d.ts`, getWorkDir: "Uses the
   * WORKDIR specified in the Dockerfile if present, or falling back to the user's home directory"). The
   * double's snapshot sets no WORKDIR, like Daytona's default one: the working directory *is* the home.
   */
  get workDir(): string {
    return this.home;
  }

  async prepare(): Promise<void> {
    await mkdir(this.home, { recursive: true });
  }

  assertStarted(): void {
    if (this.state === "destroyed") throw new DoubleRefusal(404, "NOT_FOUND", `Sandbox ${this.id} not found`);
    if (this.state !== "started")
      throw new DoubleRefusal(409, "SANDBOX_NOT_STARTED", `Sandbox ${this.id} is not started (state ${this.state}).`);
  }

  createSession(sessionId: string): void {
    if (this.sessions.has(sessionId)) throw new DoubleRefusal(409, "CONFLICT", `Session ${sessionId} already exists.`);
    // The daemon keeps a session's logs in a directory of its own, outside the user's files.
    const logs = join(this.directory, ".daemon", "sessions", randomUUID());
    this.sessions.set(sessionId, new DoubleSession(sessionId, logs, this.workDir, this.environment()));
  }

  deleteSession(sessionId: string): void {
    this.session(sessionId).remove();
    this.sessions.delete(sessionId);
  }

  execute(sessionId: string, command: string): CommandLog {
    return this.session(sessionId).execute(command);
  }

  /** A command outside any session (`/process/execute`); stopping the sandbox kills it too. */
  executeOnce(command: string, cwd: string | undefined): DoubleCommand {
    const entry = this.spawn(command, cwd ?? this.workDir);
    this.loose.add(entry);
    void entry.done.then(() => this.loose.delete(entry));
    return entry;
  }

  private spawn(command: string, cwd: string): DoubleCommand {
    return new DoubleCommand(randomUUID(), command, cwd, this.environment());
  }

  /** What the daemon's processes inherit; DAYTONA_SANDBOX_ID also marks them for `stop`. */
  private environment(): Record<string, string> {
    return {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      ...this.spec.env,
      HOME: this.home,
      USER: this.spec.user,
      DAYTONA_SANDBOX_ID: this.id,
    };
  }

  command(sessionId: string, commandId: string): CommandLog {
    const entry = this.session(sessionId).get(commandId);
    if (entry === undefined) throw new DoubleRefusal(404, "NOT_FOUND", `Command ${commandId} not found in session ${sessionId}.`);
    return entry;
  }

  /** Stops every process, also those that left their command's process group (setsid, daemons); files stay. */
  async stop(): Promise<void> {
    this.state = "stopped";
    await this.endProcesses();
  }

  /** Ends every process (the state says why first, so requests meanwhile get the platform's answer). */
  private async endProcesses(): Promise<void> {
    this.updatedAt = new Date().toISOString();
    for (const session of this.sessions.values()) session.kill();
    for (const command of this.loose) command.kill();
    this.sessions.clear();
    // As the platform's VM would: every process of the sandbox carries its id in DAYTONA_SANDBOX_ID.
    await killMarkedProcesses({ name: "DAYTONA_SANDBOX_ID", value: this.id, since: this.pidsBefore });
  }

  start(): void {
    if (this.state === "destroyed") throw new DoubleRefusal(404, "NOT_FOUND", `Sandbox ${this.id} not found`);
    this.state = "started";
    this.updatedAt = new Date().toISOString();
  }

  async destroy(): Promise<void> {
    this.state = "destroyed";
    await this.endProcesses();
    await rm(this.directory, { recursive: true, force: true });
    // A real sandbox's disk goes with it; on this host, what the file API made elsewhere goes too.
    for (const path of this.outside) await rm(path, { recursive: true, force: true });
    this.outside.clear();
  }

  /** Records the first directory a recursive mkdir made, when it lies outside the sandbox's directory. */
  made(first: string | undefined): void {
    if (first !== undefined && !first.startsWith(`${this.directory}/`)) this.outside.add(first);
  }

  private session(sessionId: string): DoubleSession {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw new DoubleRefusal(404, "NOT_FOUND", `Session ${sessionId} not found.`);
    return session;
  }
}
