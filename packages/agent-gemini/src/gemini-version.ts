/** The Gemini CLI release this plugin's flags, events and failure rules were recorded against. */
export const GEMINI_CLI_VERSION = "0.61.0";

/** npm package installed when `gemini` is missing in a remote sandbox. */
export const GEMINI_BOOTSTRAP_PACKAGE = `@google/gemini-cli@${GEMINI_CLI_VERSION}`;
