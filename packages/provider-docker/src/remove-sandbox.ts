import { OutpostError } from "@outpost/core";
import { dockerClient } from "./docker-client.js";
import { mapDockerError } from "./map-docker-error.js";

/**
 * Removes a lease container (and its anonymous volumes) by id, on the engine at DOCKER_HOST or the default
 * socket; one already gone counts as removed. For sandboxes a crashed dispatch or a killed queue attempt left.
 */
export async function removeSandbox(id: string): Promise<void> {
  if (!/^[0-9a-f]{12,64}$/.test(id)) throw new OutpostError("configuration", `${JSON.stringify(id)} is not a container id.`);
  try {
    await dockerClient(undefined).getContainer(id).remove({ force: true, v: true });
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return;
    const failure = mapDockerError(error, `remove container ${id.slice(0, 12)}`);
    throw new OutpostError(failure.code, `${failure.message} Remove it later with \`docker rm -f ${id}\`.`, {
      cause: error,
      details: { container: id },
    });
  }
}
