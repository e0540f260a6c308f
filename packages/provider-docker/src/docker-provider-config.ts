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
  /**
   * "bridge" (default: agents need egress to their model endpoint), "none" (loopback only), "host", or the
   * name of a user-defined network (e.g. an internal network whose only way out is an allow-listing proxy).
   */
  readonly network?: string;
  /** CPU limit of the container. Default 2 (or the engine's CPU count when lower). */
  readonly cpus?: number;
  /** Memory limit in MiB (swap included). Default 4096. */
  readonly memoryMb?: number;
  /** Most processes and threads alive at once in the container. Default 1024. */
  readonly pidsLimit?: number;
  /**
   * Mount the image's root filesystem read-only; the root, the home and a /tmp tmpfs stay writable.
   * Default true in mounted mode; isolated mode copies the worktree into the root filesystem, so false there.
   */
  readonly readOnlyRootFilesystem?: boolean;
  /** Size limit of the /tmp tmpfs of a read-only root filesystem. Default 1024. */
  readonly tmpSizeMb?: number;
  /** Keep the (killed) container after release, for debugging. `reap()` leaves these alone by default. */
  readonly retain?: boolean;
  /**
   * The id of a container an earlier lease made, to lease again instead of creating one (nothing is copied or
   * mounted anew): how a dead dispatch's isolated container is reached to bring its commits back.
   */
  readonly sandbox?: string;
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

/** What `outpost image build` tags by default (`OUTPOST_DOCKER_IMAGE` overrides it, e.g. the repository's tests). */
export const DEFAULT_DOCKER_IMAGE = "outpost-agents:latest";
export const DEFAULT_ROOT = "/workspace";
export const DEFAULT_HOME = "/home/outpost";
export const DEFAULT_USER = Object.freeze({ uid: 1000, gid: 1000 });
/** Limits every container gets unless configured otherwise: a fork bomb or a leak stays inside. */
export const DEFAULT_LIMITS = Object.freeze({ cpus: 2, memoryMb: 4096, pidsLimit: 1024, tmpSizeMb: 1024 });
