import Docker from "dockerode";
import type { DockerProviderConfig } from "./docker-provider-config.js";

/** The configured dockerode client, or one from the environment (DOCKER_HOST, else the default socket). */
export function dockerClient(docker: DockerProviderConfig["docker"]): Docker {
  if (docker instanceof Docker) return docker;
  return new Docker(docker);
}
