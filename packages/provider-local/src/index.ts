export { localProvider, LOCAL_PROVIDER_NAME } from "./local-provider.js";
export type { LocalProviderConfig } from "./local-provider.js";
export type { LocalHome } from "./private-home.js";
export { INHERITED_VARIABLES } from "./inherited-environment.js";
export type { LocalEnvironmentConfig } from "./inherited-environment.js";
export { descriptor } from "./local-descriptor.js";
