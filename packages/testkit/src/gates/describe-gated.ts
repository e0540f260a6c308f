import type { Unavailable } from "../shared/suite-options.js";
import { vitestRunner, type SuiteRunner } from "../shared/suite-runner.js";

/**
 * Registers `body` as a describe block when the gate passed, else one named skip
 * `unavailable: <reason>`, so a missing service shows in the report instead of vanishing.
 */
export function describeGated(
  title: string,
  gated: { unavailable?: Unavailable },
  body: () => void,
  runner: SuiteRunner = vitestRunner,
): void {
  const { unavailable } = gated;
  if (unavailable === undefined) runner.describe(title, body);
  else runner.describe(title, () => runner.it.skip(`unavailable: ${unavailable.reason}`));
}
