import type Docker from "dockerode";
import type { Command, CommandResult, FileTransfers, OutpostError } from "@outpost/core";
import { SandboxFileTransfers, SandboxLeaseBase } from "@outpost/plugin-utils";
import { runCommand } from "./docker-command.js";
import { DockerChannel } from "./docker-channel.js";
import type { LeaseSandbox } from "./lease-sandbox.js";
import { mapDockerError } from "./map-docker-error.js";
import { StandbyExec } from "./standby-exec.js";

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
export class DockerLease extends SandboxLeaseBase implements LeaseSandbox {
  readonly fileTransfers: FileTransfers;
  /** Command.homeFiles are written by the command's own exec (COMMAND_WRAPPER), not by an upload before it. */
  readonly homeFiles = true;
  /** Command.input is the exec's stdin stream: a process waiting on it costs nothing. */
  readonly idleInput = true;
  readonly container: Docker.Container;
  readonly standby: StandbyExec;
  readonly root: string;
  readonly home: string;
  readonly uid: number;
  readonly gid: number;
  protected readonly channel: DockerChannel;

  constructor(private readonly setup: DockerLeaseSetup) {
    super({ platform: "Docker", details: { container: setup.container.id } });
    this.container = setup.container;
    this.root = setup.root;
    this.home = setup.home;
    this.uid = setup.uid;
    this.gid = setup.gid;
    this.channel = new DockerChannel(this);
    this.fileTransfers = new SandboxFileTransfers(this.channel);
    this.standby = new StandbyExec(setup.container);
    this.standby.warm();
  }

  /** The container's id, for logs and debugging (`docker exec -it <id> sh`). */
  get containerId(): string {
    return this.container.id;
  }

  /** The container's id: what the descriptor's `removeSandbox` takes. */
  get sandboxId(): string {
    return this.container.id;
  }

  protected runCommand(command: Command): Promise<CommandResult> {
    return runCommand(this, command);
  }

  protected async destroy(): Promise<void> {
    this.standby.close();
    if (this.setup.retain) await this.container.kill();
    // force: SIGKILL at once, no stop grace period; v: the anonymous volumes go too.
    else await this.container.remove({ force: true, v: true });
  }

  /** 404: already gone; 409: already stopped, or a removal already in progress. */
  protected isGone(error: unknown): boolean {
    const status = (error as { statusCode?: number }).statusCode;
    return status === 404 || status === 409;
  }

  protected releaseFailure(error: unknown): OutpostError {
    return mapDockerError(error, `release the container ${this.container.id.slice(0, 12)}`);
  }
}
