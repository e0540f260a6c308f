import { firstVersionWith, type CliFeatureTable } from "@outpost/core";
import { COPILOT_CLI_VERSION } from "./copilot-version.js";

/** What a Copilot CLI release can do, as far as this plugin depends on it. */
export interface CopilotFeatures {
  /** Knows `--disable-client-telemetry` (1.0.92 stops at once on it: "unexpected argument"). */
  readonly telemetryFlag: boolean;
  /**
   * Where the session records token usage: `usage-records` (one `session.usage_record` per model call) or
   * `shutdown-totals` (only the per-model totals of `session.shutdown`, as 1.0.92 writes them).
   */
  readonly usageSource: "usage-records" | "shutdown-totals";
}

/** Copilot releases by feature, read from each release's `--help` and its session files (installed from npm). */
export const COPILOT_FEATURES: CliFeatureTable<CopilotFeatures> = {
  agent: "copilot",
  pinned: COPILOT_CLI_VERSION,
  tested: { oldest: "1.0.92", newest: COPILOT_CLI_VERSION },
  rows: [
    { since: "1.0.92", features: { telemetryFlag: false, usageSource: "shutdown-totals" } },
    // No release was published between 1.0.92 and 1.0.102.
    { since: "1.0.102", features: { telemetryFlag: true, usageSource: "usage-records" } },
  ],
  // The flag stops older releases at once; COPILOT_OFFLINE keeps telemetry off without it. Usage falls back
  // from records to shutdown totals whichever is preferred.
  unknown: {
    features: { telemetryFlag: false, usageSource: "usage-records" },
    effect: "--disable-client-telemetry is left out (offline mode keeps telemetry off)",
  },
};

export const COPILOT_TELEMETRY_FLAG_SINCE = firstVersionWith(COPILOT_FEATURES, (features) => features.telemetryFlag) as string;
