export { localProvider, LOCAL_PROVIDER_NAME } from "./local-provider.js";
export type { LocalProviderConfig } from "./local-provider.js";
export type { LocalHome } from "./private-home.js";
