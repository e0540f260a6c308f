import type { ProvidedOptions } from "../dispatch-options.js";
import { customAdapter, isCustomAgent } from "./custom-adapter.js";

/**
 * A custom agent becomes its CLI-path adapter (custom-adapter.ts) once, before the options are resolved, so
 * every stage sees the same agent object (per-agent variables and the fork hook are keyed by it). The
 * caller's own options keep the custom agent: `result.resume()` and `fork()` start from it again.
 */
export function withCustomAgent(options: ProvidedOptions): ProvidedOptions {
  const agent: unknown = (options as Partial<ProvidedOptions> | undefined)?.agent;
  return isCustomAgent(agent) ? { ...options, agent: customAdapter(agent) } : options;
}
