import type { PinnedCli } from "@outpost/core";

/** The Claude Code release this plugin's flags, events and failure rules were recorded against. */
export const CLAUDE_CLI_VERSION = "2.1.332";

/** The CLI on npm at the pinned release: what `bootstrap: "claude"` installs in a remote sandbox. */
export const CLAUDE_CLI: PinnedCli = Object.freeze({ npmPackage: "@anthropic-ai/claude-code", version: CLAUDE_CLI_VERSION });

/** npm package installed when `claude` is missing in a remote sandbox. */
export const CLAUDE_BOOTSTRAP_PACKAGE = `${CLAUDE_CLI.npmPackage}@${CLAUDE_CLI.version}`;
