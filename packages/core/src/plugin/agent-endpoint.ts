import type { AgentEndpoint } from "./plugin-descriptor.js";

/** Options of an agent that also takes the older flat `baseUrl`/`apiKey` shape. */
export interface EndpointOptions {
  readonly endpoint?: AgentEndpoint;
  /** Alias of `endpoint.baseUrl`, kept for existing callers. */
  readonly baseUrl?: string;
  /** Alias of `endpoint.apiKey`, kept for existing callers. */
  readonly apiKey?: string;
}

/**
 * Reads `endpoint: { baseUrl, apiKey }` (the documented shape) or the flat alias into the flat fields a
 * plugin uses internally; `endpoint` wins field by field when both are given.
 */
export function flattenEndpoint<T extends EndpointOptions>(options: T): T {
  const endpoint = options.endpoint;
  if (endpoint === undefined) return options;
  return {
    ...options,
    baseUrl: endpoint.baseUrl,
    ...(endpoint.apiKey === undefined ? {} : { apiKey: endpoint.apiKey }),
  };
}
