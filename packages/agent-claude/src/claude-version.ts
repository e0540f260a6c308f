/** The Claude Code release this plugin's flags, events and failure rules were recorded against. */
export const CLAUDE_CLI_VERSION = "2.1.332";

/** npm package installed when `claude` is missing in a remote sandbox. */
export const CLAUDE_BOOTSTRAP_PACKAGE = `@anthropic-ai/claude-code@${CLAUDE_CLI_VERSION}`;
