import { lstat } from "node:fs/promises";
import { isAbsolute } from "node:path";
import type Docker from "dockerode";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { SandboxContext, SandboxLease, SandboxPlacement, SandboxProvider } from "@outpost/core";
import { containerSpec } from "./container-spec.js";
import { dockerClient } from "./docker-client.js";
import { DockerLease } from "./docker-lease.js";
import { DEFAULT_DOCKER_IMAGE, DEFAULT_HOME, DEFAULT_ROOT, DEFAULT_USER, type DockerProviderConfig } from "./docker-provider-config.js";
import { copyWorktreeIn } from "./isolated-copy.js";
import { mapDockerError } from "./map-docker-error.js";
import { OperationGuard } from "@outpost/plugin-utils";
import { sandboxGitBinds } from "./sandbox-git-mounts.js";
import { validateConfig } from "./validate-config.js";
import { mountedUser } from "./worktree-owner.js";
import { reuseContainer } from "./reuse-container.js";

/** Capabilities every Docker lease has. */
export const DOCKER_CAPABILITIES = Object.freeze({ liveInput: true, fileTransfers: true, uploadBatch: true, homeFiles: true });

/** A SandboxProvider that runs each lease in its own container on a Docker engine. */
export function dockerProvider(config: DockerProviderConfig = {}): SandboxProvider {
  validateConfig(config);
  const docker = dockerClient(config.docker);
  const isolated = config.mode === "isolated";
  const placement: SandboxPlacement = isolated ? "remote" : "mounted";
  // Asked once per provider, only when the default CPU limit needs it.
  let engineCpus: Promise<number> | undefined;
  const cpus = (): Promise<number> => {
    if (config.cpus !== undefined) return Promise.resolve(config.cpus);
    engineCpus ??= docker.info().then(
      (info: { NCPU?: number }) => info.NCPU ?? 1,
      () => 1,
    );
    return engineCpus;
  };
  return {
    specificationVersion: "v1",
    name: isolated ? "docker-isolated" : "docker",
    placement,
    capabilities: {
      liveInput: DOCKER_CAPABILITIES.liveInput,
      fileTransfers: DOCKER_CAPABILITIES.fileTransfers,
      homeFiles: DOCKER_CAPABILITIES.homeFiles,
      protectedPaths: true,
    },
    ...(config.variables === undefined ? {} : { variables: config.variables }),
    acquire: async (context) => acquire(docker, config, context, await cpus()),
  };
}

async function acquire(docker: Docker, config: DockerProviderConfig, context: SandboxContext, engineCpus: number): Promise<SandboxLease> {
  throwIfAborted(context.signal, "Acquiring a Docker lease");
  for (const path of [
    context.directory,
    ...context.gitDirectories,
    ...(context.git ? [context.git.directory, ...context.git.objects] : []),
    ...(context.protectedPaths ?? []),
  ]) {
    if (typeof path !== "string" || !isAbsolute(path)) {
      throw new OutpostError(
        "configuration",
        `The sandbox context path ${JSON.stringify(path)} is not absolute. Pass absolute host paths.`,
        { details: { path } },
      );
    }
  }
  if (config.sandbox !== undefined) return reuseContainer(docker, config.sandbox, config.retain === true);
  const isolated = config.mode === "isolated";
  // A bind mount follows a symlinked worktree to wherever it points: refused, as transfers refuse it.
  if (!isolated && (await lstat(context.directory).catch(() => undefined))?.isSymbolicLink() === true) {
    throw new OutpostError(
      "workspace",
      `Refused the worktree ${JSON.stringify(context.directory)}: it is a symbolic link, and a mount would follow it. Pass the real directory.`,
      { details: { directory: context.directory } },
    );
  }
  const image = config.image ?? process.env["OUTPOST_DOCKER_IMAGE"] ?? DEFAULT_DOCKER_IMAGE;
  const root = config.root ?? DEFAULT_ROOT;
  const home = config.home ?? DEFAULT_HOME;
  const user = isolated ? (config.user ?? DEFAULT_USER) : await mountedUser(context.directory, config.user);
  const retain = config.retain === true;
  const gitBinds = !isolated && context.git ? await sandboxGitBinds(context.git, context.directory, root, user) : [];
  const plan = { image, root, home, uid: user.uid, gid: user.gid, mounted: !isolated, retain, engineCpus, gitBinds };
  const guard = new OperationGuard({ signal: context.signal }, "Acquiring a Docker lease");
  let container: Docker.Container | undefined;
  try {
    container = await docker.createContainer(containerSpec(config, context, plan)).catch((error: unknown) => {
      throw mapDockerError(error, `create a container from ${JSON.stringify(image)}`, image);
    });
    guard.check();
    if (isolated) {
      await copyWorktreeIn(container, context, root, user, guard.check).catch((error: unknown) => {
        throw mapDockerError(error, `copy ${JSON.stringify(context.directory)} into the container`);
      });
    }
    await container.start().catch((error: unknown) => {
      throw mapDockerError(error, `start a container from ${JSON.stringify(image)}`, image);
    });
    guard.check();
    return new DockerLease({ container, root, home, uid: user.uid, gid: user.gid, retain });
  } catch (error) {
    if (container !== undefined) await container.remove({ force: true, v: true }).catch(() => undefined);
    throw guard.error ?? error;
  } finally {
    guard.dispose();
  }
}
