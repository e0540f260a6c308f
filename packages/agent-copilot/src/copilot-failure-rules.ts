import type { FailureRule } from "@outpost/core";
import { COPILOT_CLI_VERSION } from "./copilot-version.js";

/**
 * How Copilot CLI reports a provider that keeps failing: after its own retries it prints one
 * `session.error` line and exits 1. Recorded against a scripted model server answering 429 / 503
 * (tests/fixtures/failures/).
 */
export const COPILOT_FAILURE_RULES: readonly FailureRule[] = Object.freeze([
  {
    id: "copilot-rate-limit",
    classification: "quota",
    // `errorType: "rate_limit"` is set for HTTP 429 from the provider.
    pattern: /"type":"session\.error"[^\n]*"errorType":"rate_limit"/,
    cliVersion: COPILOT_CLI_VERSION,
  },
  {
    id: "copilot-service-unavailable",
    classification: "unavailable",
    pattern: /"type":"session\.error"[^\n]*"statusCode":(?:500|502|503|504)\b/,
    cliVersion: COPILOT_CLI_VERSION,
  },
]);
