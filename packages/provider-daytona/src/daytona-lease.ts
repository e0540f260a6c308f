import type { Command, CommandResult, FileTransfers, OutpostError } from "@outpost/core";
import type { Sandbox } from "@daytonaio/sdk";
import { FileApiChannel, runWrappedCommand, SandboxFileTransfers, SandboxLeaseBase } from "@outpost/plugin-utils";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapDaytonaError } from "./map-daytona-error.js";
import { daemonCommand } from "./daemon-words.js";
import { runInDaytona } from "./run-in-daytona.js";
import { SessionPool } from "./session-pool.js";
import { withRetry } from "./with-retry.js";

export interface DaytonaLeaseSetup {
  readonly sandbox: Sandbox;
  /** A session opened with the lease: the first command's. */
  readonly session: string;
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly variables: Readonly<Record<string, string>>;
  /** Stop (keep) the sandbox on release instead of deleting it. */
  readonly retain: boolean;
}

/** One Daytona sandbox. Commands are session commands through a wrapper; release deletes (or stops) it. */
export class DaytonaLease extends SandboxLeaseBase implements LeaseSandbox {
  readonly fileTransfers: FileTransfers;
  readonly sandbox: Sandbox;
  readonly sessions: SessionPool;
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly variables: Readonly<Record<string, string>>;
  protected readonly channel: FileApiChannel;

  constructor(private readonly setup: DaytonaLeaseSetup) {
    super({ platform: "Daytona", details: { sandbox: setup.sandbox.id } });
    this.sandbox = setup.sandbox;
    this.sessions = new SessionPool(setup.sandbox, setup.session);
    this.root = setup.root;
    this.home = setup.home;
    this.scratch = setup.scratch;
    this.variables = setup.variables;
    this.channel = new FileApiChannel(this, {
      api: "Daytona",
      run: (options) => runInDaytona(this, options),
      // The SDK has no abortable download: the guard is checked before it and its error wins after it.
      readFile: (path) => this.sandbox.fs.downloadFile(path),
      // No shell there: the daemon splits the line into argv itself (see daemonCommand).
      removeFile: (path) => this.sandbox.process.executeCommand(daemonCommand(["rm", "-f", "--", path])),
      mapError: mapDaytonaError,
    });
    this.fileTransfers = new SandboxFileTransfers(this.channel);
  }

  /** The sandbox's id: `daytona.get(id)` or the `sandbox` option reaches it again when retained. */
  get sandboxId(): string {
    return this.sandbox.id;
  }

  protected runCommand(command: Command): Promise<CommandResult> {
    return runWrappedCommand(this, command, "Daytona", (options) => runInDaytona(this, options));
  }

  /** Stop and delete are idempotent: tried again on 5xx and 429 (see withRetry). */
  protected async destroy(): Promise<void> {
    const what = `release the Daytona sandbox ${this.sandbox.id}`;
    if (this.setup.retain) await withRetry(() => this.sandbox.stop(), what);
    else await withRetry(() => this.sandbox.delete(), what);
  }

  /** Already gone: nothing left to release (the SDK's 404, also as the cause of a mapped error). */
  protected isGone(error: unknown): boolean {
    const failure = error as { statusCode?: number; cause?: { statusCode?: number } };
    return failure.statusCode === 404 || failure.cause?.statusCode === 404;
  }

  protected releaseFailure(error: unknown): OutpostError {
    return mapDaytonaError(error, `release the Daytona sandbox ${this.sandbox.id}`);
  }
}
