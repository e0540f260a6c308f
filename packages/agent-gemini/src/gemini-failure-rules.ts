import type { FailureRule } from "@outpost/core";
import { GEMINI_CLI_VERSION } from "./gemini-version.js";

/**
 * How Gemini CLI reports a refused model call once its attempts are spent, recorded from 0.61.0 against the
 * scripted model server answering 429 and 503 (`tests/fixtures/failures/`). The `result` line names quota
 * failures; a 5xx is only recognizable in stderr (`status: 503`), so match the whole output.
 */
export const GEMINI_FAILURE_RULES: readonly FailureRule[] = Object.freeze([
  {
    id: "gemini-quota-429",
    classification: "quota",
    pattern: /request a quota increase through AI Studio|RESOURCE_EXHAUSTED|\bstatus: 429\b|"code":429\b/,
    cliVersion: GEMINI_CLI_VERSION,
  },
  {
    id: "gemini-unavailable-5xx",
    classification: "unavailable",
    pattern: /"status":"UNAVAILABLE"|\bstatus: 5\d\d\b|"code":5\d\d\b|\bcode: 5\d\d\b/,
    cliVersion: GEMINI_CLI_VERSION,
  },
]);
