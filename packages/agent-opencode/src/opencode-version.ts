/** The opencode release this plugin was recorded against (events, flags, failure output). */
export const OPENCODE_CLI_VERSION = "1.18.33";

/** npm package installed when `opencode` is missing in a remote sandbox. */
export const OPENCODE_BOOTSTRAP_PACKAGE = `opencode-ai@${OPENCODE_CLI_VERSION}`;
