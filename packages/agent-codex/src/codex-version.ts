/** The Codex CLI release this plugin's flags, events and failure rules were recorded against. */
export const CODEX_CLI_VERSION = "0.171.0";

/** npm package installed when `codex` is missing in a remote sandbox. */
export const CODEX_BOOTSTRAP_PACKAGE = `@openai/codex@${CODEX_CLI_VERSION}`;
