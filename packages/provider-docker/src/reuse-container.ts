import type Docker from "dockerode";
import { OutpostError } from "@outpost/core";
import { DockerLease } from "./docker-lease.js";
import { DEFAULT_HOME, DEFAULT_ROOT } from "./docker-provider-config.js";
import { LEASE_LABEL } from "./lease-labels.js";
import { mapDockerError } from "./map-docker-error.js";

/**
 * A lease on a container an earlier lease made (the `sandbox` option): how `outpost clean` reaches the commits
 * of a dead dispatch's isolated container before removing it. Only a container carrying the lease label is
 * taken; it is started again when it stopped (its file system kept the work). Root, home and user are the
 * container's own (its working directory, HOME and user), not this configuration's. Release removes it, unless
 * `retain`.
 */
export async function reuseContainer(docker: Docker, id: string, retain: boolean): Promise<DockerLease> {
  if (!/^[0-9a-f]{12,64}$/.test(id))
    throw new OutpostError("configuration", `The sandbox option ${JSON.stringify(id)} is not a container id.`, {
      details: { sandbox: id },
    });
  const container = docker.getContainer(id);
  const found = await container.inspect().catch((error: unknown) => {
    throw mapDockerError(error, `find the container ${id.slice(0, 12)}`);
  });
  if (found.Config.Labels?.[LEASE_LABEL] !== "1")
    throw new OutpostError("configuration", `Container ${id.slice(0, 12)} was not made by outpost; it is not reused.`, {
      details: { sandbox: id },
    });
  if (!found.State.Running)
    await container.start().catch((error: unknown) => {
      throw mapDockerError(error, `start the container ${id.slice(0, 12)} again`);
    });
  const home = found.Config.Env?.find((entry) => entry.startsWith("HOME="))?.slice("HOME=".length) || DEFAULT_HOME;
  const [uid = Number.NaN, gid = Number.NaN] = (found.Config.User ?? "").split(":").map(Number);
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new OutpostError("provider", `Container ${id.slice(0, 12)} runs as ${JSON.stringify(found.Config.User)}, not a numeric user.`, {
      details: { sandbox: id },
    });
  return new DockerLease({ container, root: found.Config.WorkingDir || DEFAULT_ROOT, home, uid, gid, retain });
}
