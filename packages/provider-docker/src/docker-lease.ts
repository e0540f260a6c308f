import type Docker from "dockerode";
import { OutpostError } from "@outpost/core";
import type { Command, CommandResult, FileTransfers, SandboxLease, TransferOptions } from "@outpost/core";
import { runCommand } from "./docker-command.js";
import { downloadFromSandbox, SandboxFileTransfers, uploadToSandbox } from "@outpost/plugin-utils";
import { DockerChannel } from "./docker-channel.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapDockerError } from "./map-docker-error.js";

export interface DockerLeaseSetup {
  readonly container: Docker.Container;
  readonly root: string;
  readonly home: string;
  readonly uid: number;
  readonly gid: number;
  /** Keep the (killed) container after release, for debugging. */
  readonly retain: boolean;
}

/** One running container. Commands are execs in it; release removes it with its anonymous volumes. */
export class DockerLease implements SandboxLease, LeaseSandbox {
  readonly specificationVersion = "v1" as const;
  readonly liveInput = true;
  readonly fileTransfers: FileTransfers;
  readonly container: Docker.Container;
  readonly root: string;
  readonly home: string;
  readonly uid: number;
  readonly gid: number;
  private readonly channel: DockerChannel;
  private releasing: Promise<void> | undefined;

  constructor(private readonly setup: DockerLeaseSetup) {
    this.container = setup.container;
    this.root = setup.root;
    this.home = setup.home;
    this.uid = setup.uid;
    this.gid = setup.gid;
    this.channel = new DockerChannel(this);
    this.fileTransfers = new SandboxFileTransfers(this.channel);
  }

  /** The container's id, for logs and debugging (`docker exec -it <id> sh`). */
  get containerId(): string {
    return this.container.id;
  }

  assertUsable(what: string): void {
    if (this.releasing !== undefined) {
      throw new OutpostError("provider", `Cannot ${what}: this Docker lease was released. Acquire a new lease.`, {
        details: { container: this.container.id },
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
      if (this.setup.retain) await this.container.kill();
      // force: SIGKILL at once, no stop grace period; v: the anonymous volumes go too.
      else await this.container.remove({ force: true, v: true });
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      // 404: already gone; 409: already stopped, or a removal already in progress.
      if (status === 404 || status === 409) return;
      this.releasing = undefined;
      throw mapDockerError(error, `release the container ${this.container.id.slice(0, 12)}`);
    }
  }

  /** A command cut short by release reports that, rather than the engine's "no such container". */
  private released(error: unknown, what: string): unknown {
    if (this.releasing === undefined || (OutpostError.isInstance(error) && error.code !== "provider")) return error;
    return new OutpostError("provider", `Could not ${what}: the Docker lease was released meanwhile. Acquire a new lease.`, {
      cause: error,
      details: { container: this.container.id },
    });
  }
}
