import { firstVersionWith, type CliFeatureTable } from "@outpost/core";
import { CODEX_CLI_VERSION } from "./codex-version.js";

/** What a Codex CLI release can do, as far as this plugin's command depends on it. */
export interface CodexFeatures {
  /** `codex exec fork <id>` exists (0.147.0 and older only have `exec resume`). */
  readonly fork: boolean;
}

/**
 * Codex releases by feature, read from each release's `codex exec --help` (installed from npm). Usage comes
 * from `turn.completed` (a running total of the thread) and from the rollout's `token_count` records in every
 * tested release.
 */
export const CODEX_FEATURES: CliFeatureTable<CodexFeatures> = {
  agent: "codex",
  pinned: CODEX_CLI_VERSION,
  tested: { oldest: "0.147.0", newest: CODEX_CLI_VERSION },
  rows: [
    { since: "0.140.0", features: { fork: false } },
    { since: "0.148.0", features: { fork: true } },
  ],
  // A fork the release may lack would fail late, after the sandbox and the restore: refused up front.
  unknown: { features: { fork: false }, effect: "fork is refused" },
};

/** The oldest release with `exec fork`. */
export const CODEX_FORK_SINCE = firstVersionWith(CODEX_FEATURES, (features) => features.fork) as string;
