import { cliReleaseResolver, OutpostError, flattenEndpoint, type EndpointOptions } from "@outpost/core";
import { claudeConversationStore } from "./claude-conversation-store.js";
import type { AgentAdapter, AgentCommand, AgentHomeFile, AgentTurn, ConversationStore, DecoderContext } from "@outpost/core";
import { CLAUDE_FEATURES } from "./claude-features.js";
import { ClaudeDecoder } from "./claude-decoder.js";
import { CLAUDE_FAILURE_RULES } from "./claude-failure-rules.js";
import { CLAUDE_CLI } from "./claude-version.js";

export interface ClaudeAgentOptions extends EndpointOptions {
  /** Anthropic-compatible endpoint, e.g. `http://127.0.0.1:18181`. Omitted: Anthropic's API. */
  readonly baseUrl?: string;
  /** Sent as `ANTHROPIC_API_KEY`, a variable only: never written to a file. */
  readonly apiKey?: string;
  /** Default model; a turn's `model` wins. */
  readonly model?: string;
  /** Default `claude`. */
  readonly executable?: string;
  /** The CLI release that runs, when known without asking it (e.g. an image). Omitted: `<executable> --version`. */
  readonly version?: string;
  /** `CLAUDE_CODE_MAX_RETRIES`: retries of a refused model call (the CLI's default is 10, with backoff up to ~40 s). */
  readonly maxRetries?: number;
  /** Extra variables for every command (credentials belong here, never in files). */
  readonly variables?: Readonly<Record<string, string>>;
  /** Captures and restores sessions. Default: the native store of this CLI's session files. */
  readonly storage?: ConversationStore;
}

/** Variables that keep Claude Code quiet and unattended (measured: no DNS lookup with them). */
const QUIET_VARIABLES: Readonly<Record<string, string>> = Object.freeze({
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_AUTOUPDATER: "1",
  DISABLE_BUG_COMMAND: "1",
  // Outpost runs the CLI in a sandbox; as root, `--dangerously-skip-permissions` is refused without it.
  IS_SANDBOX: "1",
});

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Claude Code (`@anthropic-ai/claude-code`) as an Outpost agent: `claude -p` with stream-json output. */
export function claudeAgent(given: ClaudeAgentOptions = {}): AgentAdapter {
  const options = flattenEndpoint(given);
  const variables = Object.freeze(claudeVariables(options));
  const executable = options.executable ?? "claude";
  const release = cliReleaseResolver(CLAUDE_FEATURES, {
    executable,
    variables,
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "claude",
    executable,
    bootstrap: "claude",
    cli: CLAUDE_CLI,
    // The `result` line is always printed, also after an API error; without it the turn did not finish.
    requiresFinishedEvent: true,
    usage: "events",
    variables,
    resumable: true,
    namesConversations: true,
    get forkable() {
      return release().features.fork;
    },
    storage: options.storage ?? claudeConversationStore(),
    failureRules: CLAUDE_FAILURE_RULES,
    command: (turn) => claudeCommand(turn, options, variables),
    // `--input-format stream-json`: messages written while a turn runs reach it at its next step.
    liveInput: {
      command: (turn) => claudeLiveCommand(claudeCommand(turn, options, variables), turn.prompt),
      message: claudeInputMessage,
    },
    homeFiles: () => claudeHomeFiles(options),
    createDecoder(context?: DecoderContext) {
      for (const warning of release().warnings) context?.diagnostic?.(warning);
      return new ClaudeDecoder(CLAUDE_FAILURE_RULES, context?.diagnostic);
    },
  };
}

function claudeCommand(turn: AgentTurn, options: ClaudeAgentOptions, variables: Readonly<Record<string, string>>): AgentCommand {
  const args = ["-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"];
  const model = turn.model ?? options.model;
  if (model !== undefined) args.push("--model", model);
  if (turn.resume) {
    args.push("--resume", sessionId(turn.resume.id, "resume"));
    if (turn.resume.fork) args.push("--fork-session");
  }
  // A pre-assigned id names the new session (for a fork: the copy).
  if (turn.conversationId !== undefined && (!turn.resume || turn.resume.fork))
    args.push("--session-id", sessionId(turn.conversationId, "conversationId"));
  return { executable: options.executable ?? "claude", arguments: args, stdin: turn.prompt, variables, directory: turn.root };
}

/** The same turn, its stdin open for more messages: the prompt is the first one. */
function claudeLiveCommand(command: AgentCommand, prompt: string): AgentCommand {
  return { ...command, arguments: [...command.arguments, "--input-format", "stream-json"], stdin: claudeInputMessage(prompt) };
}

/** One user message of Claude Code's stream-json input, as one line. */
function claudeInputMessage(text: string): string {
  return `${JSON.stringify({ type: "user", message: { role: "user", content: text } })}\n`;
}

function claudeVariables(options: ClaudeAgentOptions): Record<string, string> {
  return {
    ...QUIET_VARIABLES,
    ...(options.baseUrl === undefined ? {} : { ANTHROPIC_BASE_URL: options.baseUrl }),
    ...(options.apiKey === undefined ? {} : { ANTHROPIC_API_KEY: options.apiKey }),
    ...(options.maxRetries === undefined ? {} : { CLAUDE_CODE_MAX_RETRIES: String(options.maxRetries) }),
    ...options.variables,
  };
}

/** `~/.claude/settings.json`: the endpoint and the quiet switches again, so a bare `claude` in the lease behaves the same. No secrets. */
export function claudeHomeFiles(given: ClaudeAgentOptions): AgentHomeFile[] {
  const options = flattenEndpoint(given);
  const env: Record<string, string> = { ...QUIET_VARIABLES };
  if (options.baseUrl !== undefined) env["ANTHROPIC_BASE_URL"] = options.baseUrl;
  if (options.model !== undefined) env["ANTHROPIC_MODEL"] = options.model;
  return [{ path: ".claude/settings.json", content: `${JSON.stringify({ env }, null, 2)}\n` }];
}

function sessionId(id: string, field: string): string {
  if (!SESSION_ID.test(id)) {
    throw new OutpostError(
      "configuration",
      `Claude Code session ids are UUIDs; ${field} ${JSON.stringify(id.slice(0, 80))} is not one. Pass the id from the turn's conversation event.`,
      {
        details: { field },
      },
    );
  }
  return id;
}
