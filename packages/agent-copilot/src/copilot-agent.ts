import { OutpostError } from "@outpost/core";
import { cliAgent, type CliAgentOptions, type CliAgentRuntime } from "@outpost/plugin-utils";
import type { AgentAdapter, AgentCommand, AgentTurn } from "@outpost/core";
import { COPILOT_FEATURES, type CopilotFeatures } from "./copilot-features.js";
import { copilotConversationStore } from "./copilot-conversation-store.js";
import { CopilotDecoder } from "./copilot-decoder.js";
import { COPILOT_FAILURE_RULES } from "./copilot-failure-rules.js";
import { copilotTranscriptUsage } from "./copilot-transcript-usage.js";
import { COPILOT_CLI } from "./copilot-version.js";

/** A model endpoint Copilot CLI talks to instead of GitHub's routing (its "BYOK" provider). */
export interface CopilotEndpoint {
  /** e.g. `http://127.0.0.1:18181/v1`. */
  readonly baseUrl: string;
  /** Passed as a variable, never written to a file. */
  readonly apiKey?: string;
  /** Default `openai`. */
  readonly type?: "openai" | "anthropic" | "azure";
  /** Default `completions`. */
  readonly wireApi?: "completions" | "responses";
}

export interface CopilotAgentOptions extends CliAgentOptions {
  /** Without an endpoint Copilot needs a GitHub login (pass `COPILOT_GITHUB_TOKEN` in `variables`). */
  readonly endpoint?: CopilotEndpoint;
  /** Shared `XDG_CACHE_HOME`: Copilot unpacks ~235 MB into it on the first start of each fresh cache. */
  readonly cacheDirectory?: string;
}

/** Copilot CLI (`@github/copilot`) as an Outpost agent. */
export function copilotAgent(options: CopilotAgentOptions = {}): AgentAdapter {
  return cliAgent({
    name: "copilot",
    options,
    variables: copilotVariables(options),
    features: COPILOT_FEATURES,
    cli: COPILOT_CLI,
    // Copilot always ends with a `result` line, also after a provider failure.
    requiresFinishedEvent: true,
    // Its stdout carries no token counts; the session's events.jsonl has them (where depends on the release).
    usage: "session",
    transcriptUsage: (text, agent) => copilotTranscriptUsage(text, agent.release().features.usageSource),
    namesConversations: true,
    // No tested release has a fork option.
    forkable: false,
    unsupported: (feature, agent, learned) =>
      feature === "fork"
        ? `Copilot CLI ${agent.release(learned).version ?? "(version unknown)"} cannot fork a session: ` +
          `no release up to ${COPILOT_FEATURES.tested.newest} has a fork option. Continue the conversation instead.`
        : undefined,
    // Its variables may move the CLI home (COPILOT_HOME): the store looks for sessions there.
    storage: (agent) => options.storage ?? copilotConversationStore({ variables: agent.variables }),
    failureRules: COPILOT_FAILURE_RULES,
    command: (turn, agent) => copilotCommand(turn, options, agent),
    decoder: (context) => new CopilotDecoder(COPILOT_FAILURE_RULES, context?.diagnostic),
  });
}

function copilotCommand(turn: AgentTurn, options: CopilotAgentOptions, agent: CliAgentRuntime<CopilotFeatures>): AgentCommand {
  const release = agent.release(turn.cliVersion);
  if (turn.resume?.fork) {
    throw new OutpostError(
      "configuration",
      `Copilot CLI ${release.version ?? "(version unknown)"} cannot fork a session (no tested release up to ${COPILOT_FEATURES.tested.newest} has a fork option). ` +
        `Continue the conversation instead, or use an agent that supports fork.`,
      {
        details: { agent: "copilot", id: turn.resume.id, version: release.version },
      },
    );
  }
  // No `-p`: the prompt goes on stdin, so it never shows up in the process list or hits argv limits.
  const args = ["--output-format", "json", "--allow-all-tools", "--no-ask-user", "--no-auto-update", "--no-color"];
  // Releases before it stop at once on the unknown flag; COPILOT_OFFLINE keeps their telemetry off anyway.
  if (release.features.telemetryFlag) args.push("--disable-client-telemetry");
  const model = turn.model ?? options.model;
  if (model !== undefined) args.push("--model", model);
  if (turn.resume !== undefined) args.push(`--resume=${assertSessionId(turn.resume.id)}`);
  else if (turn.conversationId !== undefined) args.push(`--session-id=${assertSessionId(turn.conversationId)}`);
  return { executable: agent.executable, arguments: args, stdin: turn.prompt, variables: agent.variables, directory: turn.root };
}

// Copilot session ids are UUIDs; anything else could be read as another option or a session name.
function assertSessionId(id: string): string {
  if (!/^[0-9a-fA-F-]{7,64}$/.test(id)) {
    throw new OutpostError(
      "configuration",
      `${JSON.stringify(id)} is not a Copilot session id (a UUID such as 0cb916db-26aa-40f2-86b5-1ba81b225fd2). Pass the id reported by the previous turn.`,
      {
        details: { agent: "copilot" },
      },
    );
  }
  return id;
}

function copilotVariables(options: CopilotAgentOptions): Record<string, string> {
  // Offline mode skips GitHub auth, telemetry, web tools, the GitHub MCP server and auto-update.
  const variables: Record<string, string> = { COPILOT_AUTO_UPDATE: "false", NO_COLOR: "1" };
  if (options.endpoint !== undefined) {
    variables["COPILOT_OFFLINE"] = "true";
    variables["COPILOT_PROVIDER_BASE_URL"] = options.endpoint.baseUrl;
    variables["COPILOT_PROVIDER_TYPE"] = options.endpoint.type ?? "openai";
    variables["COPILOT_PROVIDER_WIRE_API"] = options.endpoint.wireApi ?? "completions";
    if (options.endpoint.apiKey !== undefined) variables["COPILOT_PROVIDER_API_KEY"] = options.endpoint.apiKey;
  }
  if (options.model !== undefined) variables["COPILOT_MODEL"] = options.model;
  if (options.cacheDirectory !== undefined) variables["XDG_CACHE_HOME"] = options.cacheDirectory;
  return { ...variables, ...options.variables };
}
