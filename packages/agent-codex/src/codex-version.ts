import type { PinnedCli } from "@outpost/core";

/** The Codex CLI release this plugin's flags, events and failure rules were recorded against. */
export const CODEX_CLI_VERSION = "0.171.0";

/** The CLI on npm at the pinned release: what `bootstrap: "codex"` installs in a remote sandbox. */
export const CODEX_CLI: PinnedCli = Object.freeze({ npmPackage: "@openai/codex", version: CODEX_CLI_VERSION });

/** npm package installed when `codex` is missing in a remote sandbox. */
export const CODEX_BOOTSTRAP_PACKAGE = `${CODEX_CLI.npmPackage}@${CODEX_CLI.version}`;
