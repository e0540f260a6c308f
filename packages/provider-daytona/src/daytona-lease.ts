import { randomBytes } from "node:crypto";
import { OutpostError } from "@outpost/core";
import type { Command, CommandResult, FileTransfers, SandboxLease, TransferOptions } from "@outpost/core";
import type { Sandbox } from "@daytonaio/sdk";
import { downloadFromSandbox, runWrappedCommand, SandboxFileTransfers, uploadToSandbox } from "@outpost/plugin-utils";
import { DaytonaChannel } from "./daytona-channel.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapDaytonaError } from "./map-daytona-error.js";
import { runInDaytona } from "./run-in-daytona.js";

export interface DaytonaLeaseSetup {
  readonly sandbox: Sandbox;
  readonly session: string;
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly variables: Readonly<Record<string, string>>;
  /** Stop (keep) the sandbox on release instead of deleting it. */
  readonly retain: boolean;
}

/** One Daytona sandbox. Commands are session commands through a wrapper; release deletes (or stops) it. */
export class DaytonaLease implements SandboxLease, LeaseSandbox {
  readonly specificationVersion = "v1" as const;
  readonly liveInput = true;
  readonly fileTransfers: FileTransfers;
  readonly sandbox: Sandbox;
  readonly session: string;
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly variables: Readonly<Record<string, string>>;
  private readonly channel: DaytonaChannel;
  private releasing: Promise<void> | undefined;
  private sequence = 0;
  private readonly prefix = randomBytes(4).toString("hex");

  constructor(private readonly setup: DaytonaLeaseSetup) {
    this.sandbox = setup.sandbox;
    this.session = setup.session;
    this.root = setup.root;
    this.home = setup.home;
    this.scratch = setup.scratch;
    this.variables = setup.variables;
    this.channel = new DaytonaChannel(this);
    this.fileTransfers = new SandboxFileTransfers(this.channel);
  }

  /** The sandbox's id: `daytona.get(id)` or the `sandbox` option reaches it again when retained. */
  get sandboxId(): string {
    return this.sandbox.id;
  }

  nextName(prefix: string): string {
    return `${prefix}-${this.prefix}-${++this.sequence}`;
  }

  assertUsable(what: string): void {
    if (this.releasing !== undefined) {
      throw new OutpostError("provider", `Cannot ${what}: this Daytona lease was released. Acquire a new lease.`, {
        details: { sandbox: this.sandbox.id },
      });
    }
  }

  async invoke(command: Command): Promise<CommandResult> {
    try {
      return await runWrappedCommand(this, command, "Daytona", (options) => runInDaytona(this, options));
    } catch (error) {
      throw this.released(error, "run the command");
    }
  }

  async upload(source: string, destination: string, options?: TransferOptions): Promise<void> {
    try {
      await uploadToSandbox(this.channel, source, destination, options);
    } catch (error) {
      throw this.released(error, "finish the upload");
    }
  }

  async download(source: string, destination: string, options?: TransferOptions): Promise<void> {
    try {
      await downloadFromSandbox(this.channel, source, destination, options);
    } catch (error) {
      throw this.released(error, "finish the download");
    }
  }

  release(): Promise<void> {
    this.releasing ??= this.destroy();
    return this.releasing;
  }

  private async destroy(): Promise<void> {
    try {
      if (this.setup.retain) await this.sandbox.stop();
      else await this.sandbox.delete();
    } catch (error) {
      // Already gone: nothing left to release.
      if ((error as { statusCode?: number }).statusCode === 404) return;
      this.releasing = undefined;
      throw mapDaytonaError(error, `release the Daytona sandbox ${this.sandbox.id}`);
    }
  }

  /** A command cut short by release reports that, rather than the API's "not found". */
  private released(error: unknown, what: string): unknown {
    if (this.releasing === undefined || (OutpostError.isInstance(error) && error.code !== "provider")) return error;
    return new OutpostError("provider", `Could not ${what}: the Daytona lease was released meanwhile. Acquire a new lease.`, {
      cause: error,
      details: { sandbox: this.sandbox.id },
    });
  }
}
