export { dockerProvider, DOCKER_CAPABILITIES } from "./docker-provider.js";
// The reference pages' name for the same factory (page 004: the default provider); dockerProvider is primary.
export { dockerProvider as createDockerSandboxProvider } from "./docker-provider.js";
export { DEFAULT_DOCKER_IMAGE, DEFAULT_HOME, DEFAULT_ROOT, DEFAULT_USER } from "./docker-provider-config.js";
export type { DockerProviderConfig, DockerVolume } from "./docker-provider-config.js";
export { DockerLease } from "./docker-lease.js";
export { reap } from "./reap.js";
export type { ReapOptions } from "./reap.js";
export { LEASE_LABEL, OWNER_HOST_LABEL, OWNER_PID_LABEL, RETAIN_LABEL } from "./lease-labels.js";
export { mapDockerError } from "./map-docker-error.js";
export { descriptor } from "./docker-descriptor.js";
export { dockerReachable } from "./docker-reachable.js";
export { removeSandbox } from "./remove-sandbox.js";
export { imageBuildCommand } from "./image/image-build-command.js";
export { imageRecipe, IMAGE_ROOT } from "./image/image-recipe.js";
export type { ImageAgent } from "./image/image-agents.js";
export { PUBLIC_BASE_DIGEST, PUBLIC_BASE_IMAGE } from "./image/public-base.js";
