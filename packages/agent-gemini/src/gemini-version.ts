import type { PinnedCli } from "@outpost/core";

/** The Gemini CLI release this plugin's flags, events and failure rules were recorded against. */
export const GEMINI_CLI_VERSION = "0.61.0";

/** The CLI on npm at the pinned release: what `bootstrap: "gemini"` installs in a remote sandbox. */
export const GEMINI_CLI: PinnedCli = Object.freeze({ npmPackage: "@google/gemini-cli", version: GEMINI_CLI_VERSION });

/** npm package installed when `gemini` is missing in a remote sandbox. */
export const GEMINI_BOOTSTRAP_PACKAGE = `${GEMINI_CLI.npmPackage}@${GEMINI_CLI.version}`;
