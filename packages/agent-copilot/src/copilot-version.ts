/** The Copilot CLI release this plugin was recorded against (events, flags, failure output). */
export const COPILOT_CLI_VERSION = "1.0.102";

/** npm package installed when `copilot` is missing in a remote sandbox. */
export const COPILOT_BOOTSTRAP_PACKAGE = `@github/copilot@${COPILOT_CLI_VERSION}`;
