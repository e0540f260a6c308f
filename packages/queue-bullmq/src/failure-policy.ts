import { isOutpostError } from "@outpost/core";

const RETRIED_CODES = new Set(["quota", "provider"]);
const RETRIED_CLASSIFICATIONS = new Set(["quota", "unavailable"]);

/**
 * Whether a failed attempt is worth another: `quota`, `provider` and failures classified `quota` or
 * `unavailable` (an agent out of quota, a remote or service down) are; `configuration`, `conflict` and the
 * rest fail at once, since the same job would fail the same way.
 */
export function isRetryable(error: unknown): boolean {
  if (!isOutpostError(error)) return false;
  if (RETRIED_CODES.has(error.code)) return true;
  const classification = error.details.classification;
  return typeof classification === "string" && RETRIED_CLASSIFICATIONS.has(classification);
}
