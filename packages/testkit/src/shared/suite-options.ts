import type { SuiteRunner } from "./suite-runner.js";

/** The environment a suite needs is missing (no daemon, no server): one named skip, never a silent pass. */
export interface Unavailable {
  readonly reason: string;
}

/** Options every conformance suite takes. `Capability` is the set of optional capabilities it checks. */
export interface SuiteOptions<Capability extends string> {
  readonly name: string;
  /** Capability → reason it is unsupported. Declaring one the plugin actually has fails the suite. */
  readonly unsupported?: Partial<Record<Capability, string>>;
  readonly unavailable?: Unavailable;
  readonly runner?: SuiteRunner;
}

/** Title suffix for a case whose capability is declared unsupported. */
export function unsupportedTitle(title: string, reason: string): string {
  return `${title} (unsupported: ${reason})`;
}

/** Title of the single skip registered for an unavailable environment. */
export function unavailableTitle(reason: string): string {
  return `unavailable: ${reason}`;
}
