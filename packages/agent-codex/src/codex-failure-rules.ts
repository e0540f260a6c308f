import type { FailureRule } from "@outpost/core";
import { CODEX_CLI_VERSION } from "./codex-version.js";

/**
 * How `codex exec --json` reports a refused model call (`error` / `turn.failed` lines), recorded from 0.171.0
 * against the scripted model server answering 429 (insufficient_quota, rate_limit_exceeded), 500 and 503
 * (`tests/fixtures/failures/`).
 */
export const CODEX_FAILURE_RULES: readonly FailureRule[] = Object.freeze([
  {
    id: "codex-quota-exceeded",
    classification: "quota",
    pattern: /Quota exceeded\. Check your plan and billing details|last status: 429\b|unexpected status 429\b/,
    cliVersion: CODEX_CLI_VERSION,
  },
  {
    id: "codex-service-unavailable",
    classification: "unavailable",
    pattern: /currently experiencing high demand|unexpected status 5\d\d\b|last status: 5\d\d\b/,
    cliVersion: CODEX_CLI_VERSION,
  },
]);
