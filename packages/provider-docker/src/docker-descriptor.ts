import { DESCRIPTOR_SPECIFICATION_VERSION, type ProviderDescriptor } from "@outpost/core";
import { descriptorOptions } from "@outpost/plugin-utils";
import { dockerProvider } from "./docker-provider.js";
import type { DockerProviderConfig, DockerVolume } from "./docker-provider-config.js";
import { dockerReachable } from "./docker-reachable.js";
import { imageBuildCommand } from "./image/image-build-command.js";
import { removeSandbox } from "./remove-sandbox.js";

/** How hosts (the outpost CLI, doctor) find and build this provider without knowing it by name. */
export const descriptor: ProviderDescriptor = {
  specificationVersion: DESCRIPTOR_SPECIFICATION_VERSION,
  kind: "provider",
  name: "docker",
  description: "runs the agent in a container on a Docker engine (DOCKER_HOST or /var/run/docker.sock)",
  // The default mode's placement; `mode: "isolated"` creates a provider whose placement is "remote".
  placement: "mounted",
  options: [
    {
      name: "mode",
      description:
        "mounted (default: the worktree is bind-mounted) or isolated (remote placement: nothing of the host is mounted, the repository travels as git bundles)",
    },
    {
      name: "image",
      description: "image to run (default outpost-agents:latest, what `outpost image build` tags; or OUTPOST_DOCKER_IMAGE)",
    },
    { name: "network", description: "bridge, none (no egress), host, or a network name" },
    { name: "cpus", description: "CPU limit (default 2)" },
    { name: "memoryMb", description: "memory limit in MiB, swap included (default 4096)" },
    { name: "pidsLimit", description: "most processes in the container (default 1024)" },
    { name: "writableRootFilesystem", description: "let the agent write the image's root filesystem" },
    { name: "user", description: "numeric user the container runs as" },
    { name: "volume", description: "extra mounts" },
    { name: "host", description: "Docker engine address", environment: "DOCKER_HOST" },
    { name: "retain", description: "keep the (killed) container on release instead of removing it" },
    {
      name: "sandbox",
      description: "id of a container an earlier lease made, to lease again (how clean brings a dead run's commits back)",
    },
  ],
  capabilities: ["live-input", "file-transfers", "network-isolation", "resource-limits"],
  available: () => dockerReachable(),
  check: async () =>
    (await dockerReachable())
      ? { ok: true, detail: "a Docker engine answers" }
      : { ok: false, detail: "no Docker engine answers (DOCKER_HOST or /var/run/docker.sock): start Docker, or set DOCKER_HOST" },
  createProvider: (options) => dockerProvider(dockerConfig(options)),
  removeSandbox,
  commands: [imageBuildCommand],
};

function dockerConfig(options: Readonly<Record<string, unknown>>): DockerProviderConfig {
  const { text, number, flag } = descriptorOptions(options);
  const image = text("image");
  const sandbox = text("sandbox");
  // Anything else than the two modes reaches validateConfig, which refuses it with code configuration.
  const mode = options.mode as DockerProviderConfig["mode"];
  const network = text("network");
  const user = options.user as DockerProviderConfig["user"];
  const volumes = options.volume as readonly DockerVolume[] | undefined;
  const [cpus, memoryMb, pidsLimit] = [number("cpus"), number("memoryMb"), number("pidsLimit")];
  return {
    ...(image ? { image } : {}),
    ...(sandbox ? { sandbox } : {}),
    ...(mode === undefined ? {} : { mode }),
    ...(network ? { network } : {}),
    // As root, your worktrees are root's: the container runs as you (capabilities dropped) so it can write them.
    ...(user ? { user } : process.getuid?.() === 0 ? { user: { uid: 0, gid: 0 } } : {}),
    ...(volumes ? { volumes } : {}),
    ...(cpus ? { cpus } : {}),
    ...(memoryMb ? { memoryMb } : {}),
    ...(pidsLimit ? { pidsLimit } : {}),
    ...(flag("writableRootFilesystem") ? { readOnlyRootFilesystem: false } : {}),
    ...(flag("retain") ? { retain: true } : {}),
  };
}
