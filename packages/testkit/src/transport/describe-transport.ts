import { unavailableTitle, type SuiteOptions } from "../shared/suite-options.js";
import { vitestRunner } from "../shared/suite-runner.js";
import { transportAbortTests } from "./abort.js";
import { transportConditionalWriteTests } from "./conditional-write.js";
import { transportKeyTests } from "./keys.js";
import { transportListTests } from "./list.js";
import { transportRaceTests } from "./races.js";
import { transportReadTests } from "./read.js";
import { transportRemoveTests } from "./remove.js";
import type { TransportSuiteContext, TransportUnderTest } from "./transport-suite-context.js";

/** Optional transport capabilities. None yet: every check applies to every transport. */
export type TransportCapability = never;

export interface DescribeTransportOptions extends SuiteOptions<TransportCapability> {
  /** Called once per case: each case gets a fresh, empty transport. */
  readonly create: () => Promise<TransportUnderTest>;
}

const GROUPS: readonly [string, (context: TransportSuiteContext) => void][] = [
  ["conditional writes", transportConditionalWriteTests],
  ["remove", transportRemoveTests],
  ["list", transportListTests],
  ["read", transportReadTests],
  ["keys", transportKeyTests],
  ["races", transportRaceTests],
  ["abort", transportAbortTests],
];

/** Registers the transport conformance suite for one implementation. */
export function describeTransport(options: DescribeTransportOptions): void {
  const runner = options.runner ?? vitestRunner;
  runner.describe(`transport conformance: ${options.name}`, () => {
    if (options.unavailable) {
      runner.it.skip(unavailableTitle(options.unavailable.reason));
      return;
    }
    const context: TransportSuiteContext = { runner, create: options.create };
    for (const [title, group] of GROUPS) runner.describe(title, () => group(context));
  });
}
