import type Docker from "dockerode";

/** A host path or named volume mounted into every lease container. */
export interface DockerVolume {
  /** Absolute host path, or the name of a Docker volume. */
  readonly source: string;
  /** Absolute path inside the container. */
  readonly target: string;
  readonly readOnly?: boolean;
}

export interface DockerProviderConfig {
  /** Image to run; it needs sh and tar (plus find, stat, sha256sum for fileTransfers). */
  readonly image?: string;
  /** "mounted" (default): the worktree is bind-mounted. "isolated": it is copied in; nothing of the host is mounted. */
  readonly mode?: "mounted" | "isolated";
  /** Numeric user the container runs as. Default: the worktree's owner when that is not root, else 1000:1000. */
  readonly user?: { readonly uid: number; readonly gid: number };
  /** Variables set in every lease container (and so in every command). */
  readonly variables?: Readonly<Record<string, string>>;
  readonly volumes?: readonly DockerVolume[];
  /** "bridge" (default), "none" (no egress), "host", or the name of a user-defined network. */
  readonly network?: string;
  readonly cpus?: number;
  readonly memoryMb?: number;
  readonly pidsLimit?: number;
  /** Keep the (killed) container after release, for debugging. `reap()` leaves these alone by default. */
  readonly retain?: boolean;
  /** Extra container labels. Keys under `dev.outpost.` are reserved. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Lease root inside the container. Default "/workspace". */
  readonly root?: string;
  /** Lease home inside the container: a private tmpfs, mode 0700, owned by the user. Default "/home/outpost". */
  readonly home?: string;
  /** Size limit of the home tmpfs. Default 1024. */
  readonly homeSizeMb?: number;
  /** A dockerode client, or options for one. Default: DOCKER_HOST, else /var/run/docker.sock. */
  readonly docker?: Docker | Docker.DockerOptions;
}

export const DEFAULT_DOCKER_IMAGE = "outpost-test:latest";
export const DEFAULT_ROOT = "/workspace";
export const DEFAULT_HOME = "/home/outpost";
export const DEFAULT_USER = Object.freeze({ uid: 1000, gid: 1000 });
