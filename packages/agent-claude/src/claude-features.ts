import type { CliFeatureTable } from "@outpost/core";
import { CLAUDE_CLI_VERSION } from "./claude-version.js";

/** What a Claude Code release can do, as far as this plugin's command depends on it. */
export interface ClaudeFeatures {
  /** `--resume <id> --fork-session`. */
  readonly fork: boolean;
}

/**
 * Claude Code releases by feature, read from each release's `--help` (installed from npm): every flag the
 * command uses (`--output-format stream-json`, `--resume`, `--fork-session`, `--session-id`) is in 2.1.197.
 */
export const CLAUDE_FEATURES: CliFeatureTable<ClaudeFeatures> = {
  agent: "claude",
  pinned: CLAUDE_CLI_VERSION,
  // The newest release on npm when the matrix last grew (packages/e2e/cli-matrix/versions.txt), past the pin.
  tested: { oldest: "2.1.197", newest: "2.1.337" },
  rows: [{ since: "2.1.197", features: { fork: true } }],
  unknown: { features: { fork: true }, effect: "every flag used is in every tested release" },
};
