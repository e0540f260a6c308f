import { randomBytes } from "node:crypto";
import { OutpostError } from "@outpost/core";
import type { Command, CommandResult, FileTransfers, SandboxLease, TransferOptions } from "@outpost/core";
import type { Sandbox } from "@vercel/sandbox";
import { downloadFromSandbox, SandboxFileTransfers, uploadToSandbox } from "@outpost/plugin-utils";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapVercelError } from "./map-vercel-error.js";
import { runCommand } from "./vercel-command.js";
import { VercelChannel } from "./vercel-channel.js";

export interface VercelLeaseSetup {
  readonly sandbox: Sandbox;
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly variables: Readonly<Record<string, string>>;
  /** Stop (keep) the sandbox on release instead of deleting it. */
  readonly retain: boolean;
}

/** One Vercel sandbox. Commands are SDK commands through a wrapper; release deletes (or stops) it. */
export class VercelLease implements SandboxLease, LeaseSandbox {
  readonly specificationVersion = "v1" as const;
  readonly liveInput = true;
  readonly fileTransfers: FileTransfers;
  readonly sandbox: Sandbox;
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly variables: Readonly<Record<string, string>>;
  private readonly channel: VercelChannel;
  private releasing: Promise<void> | undefined;
  private sequence = 0;
  private readonly prefix = randomBytes(4).toString("hex");

  constructor(private readonly setup: VercelLeaseSetup) {
    this.sandbox = setup.sandbox;
    this.root = setup.root;
    this.home = setup.home;
    this.scratch = setup.scratch;
    this.variables = setup.variables;
    this.channel = new VercelChannel(this);
    this.fileTransfers = new SandboxFileTransfers(this.channel);
  }

  /** The sandbox's name: `Sandbox.get({ name })` or the `sandbox` option reaches it again when retained. */
  get sandboxName(): string {
    return this.sandbox.name;
  }

  nextName(prefix: string): string {
    return `${prefix}-${this.prefix}-${++this.sequence}`;
  }

  assertUsable(what: string): void {
    if (this.releasing !== undefined) {
      throw new OutpostError("provider", `Cannot ${what}: this Vercel lease was released. Acquire a new lease.`, {
        details: { sandbox: this.sandbox.name },
      });
    }
  }

  async invoke(command: Command): Promise<CommandResult> {
    try {
      return await runCommand(this, command);
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
      const status = (error as { response?: { status?: number } }).response?.status;
      // Already gone (404) or already stopped (410): nothing left to release.
      if (status === 404 || status === 410) return;
      this.releasing = undefined;
      throw mapVercelError(error, `release the Vercel sandbox ${this.sandbox.name}`);
    }
  }

  /** A command cut short by release reports that, rather than the API's "sandbox stopped". */
  private released(error: unknown, what: string): unknown {
    if (this.releasing === undefined || (OutpostError.isInstance(error) && error.code !== "provider")) return error;
    return new OutpostError("provider", `Could not ${what}: the Vercel lease was released meanwhile. Acquire a new lease.`, {
      cause: error,
      details: { sandbox: this.sandbox.name },
    });
  }
}
