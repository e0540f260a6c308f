import type { PinnedCli } from "@outpost/core";

/** The opencode release this plugin was recorded against (events, flags, failure output). */
export const OPENCODE_CLI_VERSION = "1.18.33";

/** The CLI on npm at the pinned release: what `bootstrap: "opencode"` installs in a remote sandbox. */
export const OPENCODE_CLI: PinnedCli = Object.freeze({ npmPackage: "opencode-ai", version: OPENCODE_CLI_VERSION });

/** npm package installed when `opencode` is missing in a remote sandbox. */
export const OPENCODE_BOOTSTRAP_PACKAGE = `${OPENCODE_CLI.npmPackage}@${OPENCODE_CLI.version}`;
