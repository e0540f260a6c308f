export { dockerProvider, DOCKER_CAPABILITIES } from "./docker-provider.js";
export { DEFAULT_DOCKER_IMAGE, DEFAULT_HOME, DEFAULT_ROOT, DEFAULT_USER } from "./docker-provider-config.js";
export type { DockerProviderConfig, DockerVolume } from "./docker-provider-config.js";
export { DockerLease } from "./docker-lease.js";
export { reap } from "./reap.js";
export type { ReapOptions } from "./reap.js";
export { LEASE_LABEL, OWNER_HOST_LABEL, OWNER_PID_LABEL, RETAIN_LABEL } from "./lease-labels.js";
export { mapDockerError } from "./map-docker-error.js";
