import { OutpostError, flattenEndpoint, type EndpointOptions } from "@outpost/core";
import { cliAgent, type CliAgentOptions, type CliAgentRuntime } from "@outpost/plugin-utils";
import { codexConversationStore } from "./codex-conversation-store.js";
import type { AgentAdapter, AgentCommand, AgentTurn, CliRelease, ModelReasoning } from "@outpost/core";
import { CODEX_FEATURES, CODEX_FORK_SINCE, type CodexFeatures } from "./codex-features.js";
import { codexTranscriptUsage } from "./codex-transcript-usage.js";
import { CODEX_API_KEY_VARIABLE, codexConfigOverrides } from "./codex-config.js";
import { CodexDecoder } from "./codex-decoder.js";
import { CodexAppServerDecoder } from "./codex-app-server-decoder.js";
import { CodexAppServerSession } from "./codex-app-server-session.js";
import { CODEX_FAILURE_RULES } from "./codex-failure-rules.js";
import { CODEX_CLI, CODEX_CLI_VERSION } from "./codex-version.js";

export interface CodexAgentOptions extends EndpointOptions, CliAgentOptions {
  /** OpenAI Responses-compatible endpoint including `/v1`. Omitted: OpenAI's API with `OPENAI_API_KEY`. */
  readonly baseUrl?: string;
  /** The endpoint's key, passed as a variable only. */
  readonly apiKey?: string;
  /** Default model (a known slug such as `gpt-5.5` gets the full tool set); a turn's `model` wins. */
  readonly model?: string;
  /**
   * The CLI release that runs, when it is known without asking it (e.g. inside an image built by `outpost
   * image build`). Omitted: learned once from `<executable> --version` on this host.
   */
  readonly version?: string;
  /** Retries of a refused model call (`request_max_retries`, `stream_max_retries`); needs `baseUrl`. */
  readonly maxRetries?: number;
  /** The model's reasoning effort (`model_reasoning_effort`). */
  readonly reasoning?: ModelReasoning;
}

/**
 * Codex CLI (`@openai/codex`) as an Outpost agent: `codex exec --json`, prompt on stdin; a steered turn runs
 * through `codex app-server` instead, whose running turn takes instructions (`turn/steer`).
 */
export function codexAgent(given: CodexAgentOptions = {}): AgentAdapter {
  const options = flattenEndpoint(given);
  return cliAgent({
    name: "codex",
    options,
    variables: codexVariables(options),
    features: CODEX_FEATURES,
    cli: CODEX_CLI,
    // `turn.completed` / `turn.failed` close every turn.
    requiresFinishedEvent: true,
    usage: "events",
    // A continued turn's own usage is the rollout's running total minus the total before it.
    transcriptUsage: codexTranscriptUsage,
    // `codex exec` reads no input once a turn runs; its app-server takes `turn/steer` into the running turn.
    // Both write the same rollout, so either continues a thread the other started.
    liveInput: (agent) => ({ open: (turn) => codexAppServerSession(turn, options, agent) }),
    forkable: (agent) => agent.release().features.fork,
    unsupported: (feature, agent, learned) => (feature === "fork" ? forkUnsupported(agent.release(learned)) : undefined),
    storage: () => options.storage ?? codexConversationStore(),
    failureRules: CODEX_FAILURE_RULES,
    command: (turn, agent) => codexCommand(turn, options, agent),
    decoder: (context) => {
      const settings = {
        continued: context?.turn?.resume !== undefined,
        ...(context?.diagnostic ? { diagnostic: context.diagnostic } : {}),
      };
      return context?.live ? new CodexAppServerDecoder(CODEX_FAILURE_RULES, settings) : new CodexDecoder(CODEX_FAILURE_RULES, settings);
    },
  });
}

function forkUnsupported(release: CliRelease<CodexFeatures>): string | undefined {
  if (release.features.fork) return undefined;
  if (release.version === undefined)
    return `The codex version is unknown, and fork needs codex ${CODEX_FORK_SINCE} or newer. Name the release with --agent-version (the agent's \`version\` option), or continue without fork: true.`;
  return `codex ${release.version ?? "(unknown version)"} has no \`exec fork\`; fork needs codex ${CODEX_FORK_SINCE} or newer. Upgrade the CLI, or continue the conversation without fork: true.`;
}

/** Throws code `configuration` for what no Codex turn can do: a fork the release lacks, a given thread id. */
function checkTurn(turn: AgentTurn, agent: CliAgentRuntime<CodexFeatures>): void {
  const release = agent.release(turn.cliVersion);
  const refused = turn.resume?.fork ? forkUnsupported(release) : undefined;
  if (refused !== undefined) throw new OutpostError("configuration", refused, { details: { agent: "codex", version: release.version } });
  if (turn.conversationId !== undefined) {
    throw new OutpostError(
      "configuration",
      "Codex picks its own thread ids and cannot start a conversation with a given id. Omit conversationId and read the id from the turn's conversation event.",
    );
  }
  if (turn.resume) threadId(turn.resume.id);
}

/** The same turn through `codex app-server`: the same settings, the prompt sent as turn/start. */
function codexAppServerSession(turn: AgentTurn, options: CodexAgentOptions, agent: CliAgentRuntime<CodexFeatures>): CodexAppServerSession {
  checkTurn(turn, agent);
  const model = turn.model ?? options.model;
  return new CodexAppServerSession(turn, {
    executable: agent.executable,
    arguments: ["app-server", ...codexConfigOverrides(options)],
    variables: agent.variables,
    ...(model === undefined ? {} : { model }),
    clientVersion: CODEX_CLI_VERSION,
  });
}

function codexCommand(turn: AgentTurn, options: CodexAgentOptions, agent: CliAgentRuntime<CodexFeatures>): AgentCommand {
  checkTurn(turn, agent);
  // Settings as `-c` overrides, not `~/.codex/config.toml`: on a host home that file is the user's own.
  const args = ["exec", ...codexConfigOverrides(options), "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox"];
  const model = turn.model ?? options.model;
  if (model !== undefined) args.push("--model", model);
  if (turn.resume) args.push(turn.resume.fork ? "fork" : "resume", threadId(turn.resume.id));
  // `-`: the prompt is read from stdin (no argument-length limit, nothing in the process list).
  args.push("-");
  return { executable: agent.executable, arguments: args, stdin: turn.prompt, variables: agent.variables, directory: turn.root };
}

function codexVariables(options: CodexAgentOptions): Record<string, string> {
  const variables: Record<string, string> = {};
  if (options.apiKey !== undefined) variables[options.baseUrl === undefined ? "OPENAI_API_KEY" : CODEX_API_KEY_VARIABLE] = options.apiKey;
  return { ...variables, ...options.variables };
}

function threadId(id: string): string {
  // An id starting with `-` would be read as an option; codex ids are UUIDs or thread names.
  if (id.length === 0 || id.startsWith("-") || /[\s\0]/.test(id)) {
    throw new OutpostError(
      "configuration",
      `${JSON.stringify(id.slice(0, 80))} is not a Codex thread id. Pass the id from the turn's conversation event.`,
    );
  }
  return id;
}
