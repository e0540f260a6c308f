import { flattenEndpoint, type EndpointOptions } from "@outpost/core";
import { cliAgent, uuidSessionId, type CliAgentOptions, type CliAgentRuntime } from "@outpost/plugin-utils";
import { claudeConversationStore } from "./claude-conversation-store.js";
import type { AgentAdapter, AgentCommand, AgentTurn, ModelReasoning } from "@outpost/core";
import { CLAUDE_FEATURES, type ClaudeFeatures } from "./claude-features.js";
import { ClaudeDecoder } from "./claude-decoder.js";
import { CLAUDE_FAILURE_RULES } from "./claude-failure-rules.js";
import { CLAUDE_CLI } from "./claude-version.js";

export interface ClaudeAgentOptions extends EndpointOptions, CliAgentOptions {
  /** Anthropic-compatible endpoint, e.g. `http://127.0.0.1:18181`. Omitted: Anthropic's API. */
  readonly baseUrl?: string;
  /** Sent as `ANTHROPIC_API_KEY`, a variable only: never written to a file. */
  readonly apiKey?: string;
  /** `CLAUDE_CODE_MAX_RETRIES`: retries of a refused model call (the CLI's default is 10, with backoff up to ~40 s). */
  readonly maxRetries?: number;
  /** `CLAUDE_CODE_EFFORT_LEVEL`: the model's reasoning effort. */
  readonly reasoning?: ModelReasoning;
  /** `CLAUDE_CODE_MAX_OUTPUT_TOKENS`: the largest answer of one model call, in tokens. */
  readonly maxOutputTokens?: number;
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

/** Claude Code (`@anthropic-ai/claude-code`) as an Outpost agent: `claude -p` with stream-json output. */
export function claudeAgent(given: ClaudeAgentOptions = {}): AgentAdapter {
  const options = flattenEndpoint(given);
  return cliAgent({
    name: "claude",
    options,
    variables: claudeVariables(options),
    features: CLAUDE_FEATURES,
    cli: CLAUDE_CLI,
    // The `result` line is always printed, also after an API error; without it the turn did not finish.
    requiresFinishedEvent: true,
    usage: "events",
    namesConversations: true,
    // Every tested release has `--fork-session`.
    forkable: true,
    storage: () => options.storage ?? claudeConversationStore(),
    failureRules: CLAUDE_FAILURE_RULES,
    command: (turn, agent) => claudeCommand(turn, options, agent),
    // `--input-format stream-json`: messages written while a turn runs reach it at its next step. Stateless:
    // each instruction is one more line, taken as written (the CLI answers nothing to it).
    liveInput: (agent) => ({
      open: (turn) => ({
        command: claudeLiveCommand(claudeCommand(turn, options, agent), turn.prompt),
        message: (text) => ({ write: claudeInputMessage(text) }),
      }),
    }),
    decoder: (context) => new ClaudeDecoder(CLAUDE_FAILURE_RULES, context?.diagnostic),
  });
}

function claudeCommand(turn: AgentTurn, options: ClaudeAgentOptions, agent: CliAgentRuntime<ClaudeFeatures>): AgentCommand {
  // The settings travel on the command line, never in `~/.claude/settings.json`: on a host home that file is
  // the user's own. `--settings` outranks the user's settings, so their `env` cannot redirect the endpoint.
  const args = [
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--dangerously-skip-permissions",
    "--settings",
    claudeSettings(options),
  ];
  const model = turn.model ?? options.model;
  if (model !== undefined) args.push("--model", model);
  if (turn.resume) {
    args.push("--resume", uuidSessionId("Claude Code", turn.resume.id, "resume"));
    if (turn.resume.fork) args.push("--fork-session");
  }
  // A pre-assigned id names the new session (for a fork: the copy).
  if (turn.conversationId !== undefined && (!turn.resume || turn.resume.fork))
    args.push("--session-id", uuidSessionId("Claude Code", turn.conversationId, "conversationId"));
  return { executable: agent.executable, arguments: args, stdin: turn.prompt, variables: agent.variables, directory: turn.root };
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
    ...modelVariables(options),
    ...options.variables,
  };
}

/**
 * The settings passed with `--settings` (inline JSON): the endpoint and the quiet switches, layered over the
 * user's own settings without touching them. No secrets: the key stays a variable.
 */
export function claudeSettings(given: ClaudeAgentOptions): string {
  const options = flattenEndpoint(given);
  const env: Record<string, string> = { ...QUIET_VARIABLES };
  if (options.baseUrl !== undefined) env["ANTHROPIC_BASE_URL"] = options.baseUrl;
  if (options.model !== undefined) env["ANTHROPIC_MODEL"] = options.model;
  // As the endpoint: over any value of the user's own settings.
  Object.assign(env, modelVariables(options));
  return JSON.stringify({ env });
}

/** The model settings as the variables Claude Code reads. */
function modelVariables(options: ClaudeAgentOptions): Record<string, string> {
  return {
    ...(options.reasoning === undefined ? {} : { CLAUDE_CODE_EFFORT_LEVEL: options.reasoning }),
    ...(options.maxOutputTokens === undefined ? {} : { CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(options.maxOutputTokens) }),
  };
}
