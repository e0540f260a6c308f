import type { Readable } from "node:stream";
import type { Command, CommandResult, FileTransfers, OutpostError } from "@outpost/core";
import type { Sandbox } from "@vercel/sandbox";
import { FileApiChannel, SandboxFileTransfers, SandboxLeaseBase } from "@outpost/plugin-utils";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapVercelError } from "./map-vercel-error.js";
import { runInSandbox } from "./run-in-sandbox.js";
import { runCommand } from "./vercel-command.js";

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
export class VercelLease extends SandboxLeaseBase implements LeaseSandbox {
  readonly fileTransfers: FileTransfers;
  readonly sandbox: Sandbox;
  readonly root: string;
  readonly home: string;
  readonly scratch: string;
  readonly variables: Readonly<Record<string, string>>;
  protected readonly channel: FileApiChannel;

  constructor(private readonly setup: VercelLeaseSetup) {
    super({ platform: "Vercel", details: { sandbox: setup.sandbox.name } });
    this.sandbox = setup.sandbox;
    this.root = setup.root;
    this.home = setup.home;
    this.scratch = setup.scratch;
    this.variables = setup.variables;
    this.channel = new FileApiChannel(this, {
      api: "Vercel",
      run: (options) => runInSandbox(this, options),
      // The SDK's declared type is NodeJS.ReadableStream; at run time it is a Readable (Readable.fromWeb).
      readFile: async (path, signal) => (await this.sandbox.readFile({ path }, { signal })) as Readable | null,
      removeFile: (path) => this.sandbox.runCommand({ cmd: "rm", args: ["-f", "--", path] }),
      mapError: mapVercelError,
    });
    this.fileTransfers = new SandboxFileTransfers(this.channel);
  }

  /** The sandbox's name: `Sandbox.get({ name })` or the `sandbox` option reaches it again when retained. */
  get sandboxName(): string {
    return this.sandbox.name;
  }

  /** The sandbox's name: what the descriptor's `removeSandbox` takes. */
  get sandboxId(): string {
    return this.sandbox.name;
  }

  protected runCommand(command: Command): Promise<CommandResult> {
    return runCommand(this, command);
  }

  protected async destroy(): Promise<void> {
    if (this.setup.retain) await this.sandbox.stop();
    else await this.sandbox.delete();
  }

  /** Already gone (404) or already stopped (410): nothing left to release. */
  protected isGone(error: unknown): boolean {
    const status = (error as { response?: { status?: number } }).response?.status;
    return status === 404 || status === 410;
  }

  protected releaseFailure(error: unknown): OutpostError {
    return mapVercelError(error, `release the Vercel sandbox ${this.sandbox.name}`);
  }
}
