import type { CliFeatureTable } from "@outpost/core";
import { OPENCODE_CLI_VERSION } from "./opencode-version.js";

/** What an opencode release can do, as far as this plugin's command depends on it. */
export interface OpencodeFeatures {
  /**
   * The `run` option that approves permission prompts not explicitly denied: `--auto` since 1.17.18, named
   * `--dangerously-skip-permissions` before. A release stops at once on the one it does not know.
   */
  readonly permissionFlag: "--auto" | "--dangerously-skip-permissions" | undefined;
}

/** opencode releases by feature, read from each release's `opencode run --help` (installed from npm). */
export const OPENCODE_FEATURES: CliFeatureTable<OpencodeFeatures> = {
  agent: "opencode",
  pinned: OPENCODE_CLI_VERSION,
  tested: { oldest: "1.17.0", newest: OPENCODE_CLI_VERSION },
  rows: [
    { since: "1.15.13", features: { permissionFlag: "--dangerously-skip-permissions" } },
    { since: "1.17.18", features: { permissionFlag: "--auto" } },
  ],
  // Either flag stops the releases that lack it; without one the config's permissions still apply.
  unknown: {
    features: { permissionFlag: undefined },
    effect: "no permission flag is passed (prompts the config does not allow are refused)",
  },
};
