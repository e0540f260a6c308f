import { randomBytes } from "node:crypto";
import { OutpostError } from "@outpost/core";
import type { Command, CommandResult, FileTransfers, SandboxLease, TransferOptions } from "@outpost/core";
import type { SandboxChannel } from "./sandbox-channel.js";
import { downloadFromSandbox, uploadToSandbox } from "./sandbox-transfers.js";

/** What a provider tells the lease base about itself. */
export interface LeaseIdentity {
  /** The platform in messages: "Docker", "Vercel", "Daytona". */
  readonly platform: string;
  /** Names the sandbox in error details (e.g. `{ container: id }`); never a secret. */
  readonly details: Readonly<Record<string, string>>;
}

/**
 * The part of a lease every channel-based provider writes the same way. Its rule: **once `release()` was
 * called, nothing new starts** (`assertUsable` throws `provider`), and an operation that a release cut
 * short fails with "the lease was released meanwhile" (code `provider`, the platform's error as cause)
 * instead of the platform's "not found"; an error that is not a `provider` error (refusal, timeout, abort)
 * is kept as it is. `release()` runs the teardown once and every later call gets the same promise; a
 * sandbox that is already gone counts as released; any other teardown failure lets release be tried again.
 */
export abstract class SandboxLeaseBase implements SandboxLease {
  readonly specificationVersion = "v1" as const;
  readonly liveInput = true;
  abstract readonly root: string;
  abstract readonly home: string;
  abstract readonly fileTransfers: FileTransfers;
  /** Upload and download go through it (see `uploadToSandbox`, `downloadFromSandbox`). */
  protected abstract readonly channel: SandboxChannel;
  private releasing: Promise<void> | undefined;
  private sequence = 0;
  private readonly namePrefix = randomBytes(4).toString("hex");

  protected constructor(private readonly identity: LeaseIdentity) {}

  /** Runs one command (the lease is known to be usable only at the start: check it in the runner). */
  protected abstract runCommand(command: Command): Promise<CommandResult>;
  /** Stops or deletes the sandbox. */
  protected abstract destroy(): Promise<void>;
  /** True when a teardown failure means the sandbox is already gone (or already stopped). */
  protected abstract isGone(error: unknown): boolean;
  /** The teardown failure as an OutpostError that says what to do. */
  protected abstract releaseFailure(error: unknown): OutpostError;

  /** A name unique within the lease (and unlikely across leases), for scratch files. */
  nextName(prefix: string): string {
    return `${prefix}-${this.namePrefix}-${++this.sequence}`;
  }

  assertUsable(what: string): void {
    if (this.releasing === undefined) return;
    throw new OutpostError("provider", `Cannot ${what}: this ${this.identity.platform} lease was released. Acquire a new lease.`, {
      details: this.identity.details,
    });
  }

  async invoke(command: Command): Promise<CommandResult> {
    try {
      return await this.runCommand(command);
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
    this.releasing ??= this.destroy().catch((error: unknown) => {
      if (this.isGone(error)) return;
      this.releasing = undefined;
      throw this.releaseFailure(error);
    });
    return this.releasing;
  }

  private released(error: unknown, what: string): unknown {
    if (this.releasing === undefined || (OutpostError.isInstance(error) && error.code !== "provider")) return error;
    return new OutpostError(
      "provider",
      `Could not ${what}: the ${this.identity.platform} lease was released meanwhile. Acquire a new lease.`,
      { cause: error, details: this.identity.details },
    );
  }
}
