import type { FailureRule } from "@outpost/core";
import { CLAUDE_CLI_VERSION } from "./claude-version.js";

/**
 * How Claude Code reports a refused model call once its retries are spent, recorded from 2.1.332 against
 * the scripted model server answering 429, 529 and 503 (`tests/fixtures/failures/`). Matched against the
 * `result` line or the whole output.
 */
export const CLAUDE_FAILURE_RULES: readonly FailureRule[] = Object.freeze([
  {
    id: "claude-rate-limit-429",
    classification: "quota",
    pattern: /API Error: Request rejected \(429\)|"api_error_type":"rate_limit_error"/,
    cliVersion: CLAUDE_CLI_VERSION,
  },
  {
    id: "claude-overloaded-or-5xx",
    classification: "unavailable",
    pattern: /API Error: 5\d\d\b|"api_error_type":"(?:overloaded_error|api_error)"/,
    cliVersion: CLAUDE_CLI_VERSION,
  },
]);
