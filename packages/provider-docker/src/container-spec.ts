import type Docker from "dockerode";
import type { SandboxContext } from "@outpost/core";
import type { DockerProviderConfig } from "./docker-provider-config.js";
import { leaseLabels } from "./lease-labels.js";

export interface ContainerPlan {
  readonly image: string;
  readonly root: string;
  readonly home: string;
  readonly uid: number;
  readonly gid: number;
  readonly mounted: boolean;
  readonly retain: boolean;
}

/**
 * The container for one lease, hardened by default: non-root, every capability dropped,
 * no-new-privileges, an init process, a private tmpfs home; host paths only where asked, never the
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
  }
  const homeOptions = `rw,exec,nosuid,nodev,size=${config.homeSizeMb ?? 1024}m,mode=0700,uid=${plan.uid},gid=${plan.gid}`;
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
      Tmpfs: { [plan.home]: homeOptions },
      AutoRemove: false,
      ...(config.memoryMb === undefined ? {} : { Memory: Math.round(config.memoryMb * 1024 * 1024) }),
      ...(config.cpus === undefined ? {} : { NanoCpus: Math.round(config.cpus * 1e9) }),
      ...(config.pidsLimit === undefined ? {} : { PidsLimit: config.pidsLimit }),
    },
  };
}

function isWithin(parent: string, child: string): boolean {
  const base = parent.endsWith("/") ? parent : `${parent}/`;
  return child === parent || child.startsWith(base);
}
