import type { CliFeatureTable } from "@outpost/core";
import { GEMINI_CLI_VERSION } from "./gemini-version.js";

/** What a Gemini CLI release can do, as far as this plugin's command depends on it. */
export interface GeminiFeatures {
  /** A way to continue a copy of a session (none yet: `--resume` continues it in place). */
  readonly fork: boolean;
}

/**
 * Gemini CLI releases by feature, read from each release's `--help` (installed from npm): every flag the
 * command uses (`--output-format stream-json`, `--yolo`, `--resume`, `--session-id`) is in 0.55.1.
 */
export const GEMINI_FEATURES: CliFeatureTable<GeminiFeatures> = {
  agent: "gemini",
  pinned: GEMINI_CLI_VERSION,
  tested: { oldest: "0.55.1", newest: GEMINI_CLI_VERSION },
  rows: [{ since: "0.55.1", features: { fork: false } }],
  unknown: { features: { fork: false }, effect: "every flag used is in every tested release" },
};
