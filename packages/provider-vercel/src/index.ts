export { vercelProvider, VERCEL_CAPABILITIES } from "./vercel-provider.js";
export { vercelCredentials } from "./vercel-provider-config.js";
export type { VercelProviderConfig, VercelCreateParameters } from "./vercel-provider-config.js";
export { VercelLease } from "./vercel-lease.js";
export { mapVercelError } from "./map-vercel-error.js";
export { descriptor } from "./vercel-descriptor.js";
export { removeVercelSandbox } from "./remove-vercel-sandbox.js";
