import { hostname } from "node:os";
import type Docker from "dockerode";
import { isProcessRunning } from "@outpost/plugin-utils";
import { dockerClient } from "./docker-client.js";
import type { DockerProviderConfig } from "./docker-provider-config.js";
import { LEASE_LABEL, OWNER_HOST_LABEL, OWNER_PID_LABEL, RETAIN_LABEL } from "./lease-labels.js";
import { mapDockerError } from "./map-docker-error.js";

export interface ReapOptions {
  readonly docker?: DockerProviderConfig["docker"];
  /** Also remove containers kept with `retain: true`. Default false. */
  readonly includeRetained?: boolean;
}

/**
 * Removes lease containers left by host processes that are gone (crashed or killed before release).
 * Only containers created on this host are judged; returns the ids removed.
 */
export async function reap(options: ReapOptions = {}): Promise<string[]> {
  const docker = dockerClient(options.docker);
  let containers: Docker.ContainerInfo[];
  try {
    containers = await docker.listContainers({ all: true, filters: { label: [`${LEASE_LABEL}=1`] } });
  } catch (error) {
    throw mapDockerError(error, "list Outpost lease containers");
  }
  const here = hostname();
  const removed: string[] = [];
  for (const info of containers) {
    const labels = info.Labels ?? {};
    if (labels[OWNER_HOST_LABEL] !== here) continue;
    if (labels[RETAIN_LABEL] === "1" && !options.includeRetained) continue;
    const pid = Number(labels[OWNER_PID_LABEL]);
    if (Number.isInteger(pid) && pid > 0 && isProcessRunning(pid)) continue;
    try {
      await docker.getContainer(info.Id).remove({ force: true, v: true });
      removed.push(info.Id);
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404)
        throw mapDockerError(error, `remove the orphaned container ${info.Id.slice(0, 12)}`);
    }
  }
  return removed;
}
