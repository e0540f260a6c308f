export { daytonaProvider, DAYTONA_CAPABILITIES } from "./daytona-provider.js";
export { daytonaCredentials } from "./daytona-provider-config.js";
export type { DaytonaProviderConfig, DaytonaCreateParameters } from "./daytona-provider-config.js";
export { DaytonaLease } from "./daytona-lease.js";
export { mapDaytonaError } from "./map-daytona-error.js";
export { descriptor } from "./daytona-descriptor.js";
export { removeDaytonaSandbox } from "./remove-daytona-sandbox.js";
