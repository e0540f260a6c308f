import type { PinnedCli } from "@outpost/core";

/** The Copilot CLI release this plugin was recorded against (events, flags, failure output). */
export const COPILOT_CLI_VERSION = "1.0.102";

/** The CLI on npm at the pinned release: what `bootstrap: "copilot"` installs in a remote sandbox. */
export const COPILOT_CLI: PinnedCli = Object.freeze({ npmPackage: "@github/copilot", version: COPILOT_CLI_VERSION });

/** npm package installed when `copilot` is missing in a remote sandbox. */
export const COPILOT_BOOTSTRAP_PACKAGE = `${COPILOT_CLI.npmPackage}@${COPILOT_CLI.version}`;
