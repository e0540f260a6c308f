import type { FailureRule } from "@outpost/core";
import { OPENCODE_CLI_VERSION } from "./opencode-version.js";

/**
 * How `opencode run --format json` reports a provider that keeps failing: after its retries it prints
 * one `error` event carrying the HTTP status and exits 1. Recorded against a scripted model server
 * answering 429 / 503 (tests/fixtures/failures/).
 */
export const OPENCODE_FAILURE_RULES: readonly FailureRule[] = Object.freeze([
  {
    id: "opencode-rate-limit",
    classification: "quota",
    pattern: /"type":"error"[^\n]*"statusCode":429\b/,
    cliVersion: OPENCODE_CLI_VERSION,
  },
  {
    id: "opencode-service-unavailable",
    classification: "unavailable",
    pattern: /"type":"error"[^\n]*"statusCode":(?:500|502|503|504)\b/,
    cliVersion: OPENCODE_CLI_VERSION,
  },
]);
