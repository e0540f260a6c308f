import { posix } from "node:path";
import type Docker from "dockerode";
import type { SandboxContext } from "@outpost/core";
import { DEFAULT_LIMITS, type DockerProviderConfig } from "./docker-provider-config.js";
import { leaseLabels } from "./lease-labels.js";

export interface ContainerPlan {
  readonly image: string;
  readonly root: string;
  readonly home: string;
  readonly uid: number;
  readonly gid: number;
  readonly mounted: boolean;
  readonly retain: boolean;
  /** CPUs the engine has: the default CPU limit never asks for more. */
  readonly engineCpus: number;
  /** Mounted mode: the binds of the private git directory, if the context has one (sandbox-git-mounts.ts). */
  readonly gitBinds: readonly string[];
}

/**
 * The container for one lease, hardened by default: non-root, every capability dropped,
 * no-new-privileges, an init process, a private tmpfs home; bounded CPU, memory and process count; a
 * read-only root filesystem (mounted mode) with a writable /tmp; host paths only where asked, never the
 * Docker socket. The main process just sleeps: commands are execs.
 */
export function containerSpec(config: DockerProviderConfig, context: SandboxContext, plan: ContainerPlan): Docker.ContainerCreateOptions {
  const variables = { ...(config.variables ?? {}), ...context.variables, HOME: plan.home };
  const binds = (config.volumes ?? []).map((volume) => `${volume.source}:${volume.target}${volume.readOnly ? ":ro" : ""}`);
  if (plan.mounted) {
    binds.push(`${context.directory}:${plan.root}`);
    // A linked worktree's .git file names its git directories by host path: mount them at that path.
    for (const directory of context.gitDirectories) {
      if (!isWithin(context.directory, directory)) binds.push(`${directory}:${directory}`);
    }
    binds.push(...plan.gitBinds);
  }
  const masks = plan.mounted ? protectedMasks(context, plan.root) : [];
  const homeOptions = `rw,exec,nosuid,nodev,size=${config.homeSizeMb ?? 1024}m,mode=0700,uid=${plan.uid},gid=${plan.gid}`;
  const readOnly = config.readOnlyRootFilesystem ?? plan.mounted;
  const tmpfs: Record<string, string> = { [plan.home]: homeOptions };
  // Empty and read-only: the agent can neither read what the host keeps there nor plant what it reads later.
  for (const mask of masks) tmpfs[mask] = `ro,nosuid,nodev,noexec,size=4k,mode=0555`;
  if (readOnly && plan.home !== "/tmp")
    tmpfs["/tmp"] = `rw,exec,nosuid,nodev,size=${config.tmpSizeMb ?? DEFAULT_LIMITS.tmpSizeMb}m,mode=1777`;
  const memory = Math.round((config.memoryMb ?? DEFAULT_LIMITS.memoryMb) * 1024 * 1024);
  const cpus = config.cpus ?? Math.min(DEFAULT_LIMITS.cpus, plan.engineCpus);
  return {
    Image: plan.image,
    Entrypoint: ["sleep"],
    Cmd: ["2147483647"],
    User: `${plan.uid}:${plan.gid}`,
    WorkingDir: plan.root,
    Env: Object.entries(variables).map(([name, value]) => `${name}=${value}`),
    Labels: leaseLabels(config.labels ?? {}, plan.retain),
    AttachStdin: false,
    AttachStdout: false,
    AttachStderr: false,
    Tty: false,
    NetworkDisabled: config.network === "none",
    HostConfig: {
      Init: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      NetworkMode: config.network ?? "bridge",
      Binds: binds,
      Tmpfs: tmpfs,
      ReadonlyRootfs: readOnly,
      AutoRemove: false,
      // Swap equal to memory: no swap on top of the limit.
      Memory: memory,
      MemorySwap: memory,
      NanoCpus: Math.round(cpus * 1e9),
      PidsLimit: config.pidsLimit ?? DEFAULT_LIMITS.pidsLimit,
    },
  };
}

/** Where, in the container, each protected host path inside the mounted worktree appears. */
function protectedMasks(context: SandboxContext, root: string): string[] {
  return (context.protectedPaths ?? [])
    .filter((path) => path !== context.directory && isWithin(context.directory, path))
    .map((path) => posix.join(root, path.slice(context.directory.length)));
}

function isWithin(parent: string, child: string): boolean {
  const base = parent.endsWith("/") ? parent : `${parent}/`;
  return child === parent || child.startsWith(base);
}
