import { OutpostError, flattenEndpoint, type EndpointOptions } from "@outpost/core";
import { cliAgent, uuidSessionId, type CliAgentOptions, type CliAgentRuntime } from "@outpost/plugin-utils";
import { GEMINI_FEATURES, type GeminiFeatures } from "./gemini-features.js";
import { geminiConversationStore } from "./gemini-conversation-store.js";
import type { AgentAdapter, AgentCommand, AgentTurn } from "@outpost/core";
import { GeminiDecoder } from "./gemini-decoder.js";
import { GEMINI_FAILURE_RULES } from "./gemini-failure-rules.js";
import { GEMINI_SETTINGS_VARIABLE, geminiSettings } from "./gemini-settings.js";
import { posix } from "node:path";
import { GEMINI_CLI } from "./gemini-version.js";

export interface GeminiAgentOptions extends EndpointOptions, CliAgentOptions {
  /** Gemini API-compatible endpoint, e.g. `http://127.0.0.1:18181`. Omitted: Google's API. */
  readonly baseUrl?: string;
  /** Sent as `GEMINI_API_KEY`, a variable only. */
  readonly apiKey?: string;
  /** Default model; a turn's `model` wins. Omitted: `auto`, which adds a routing call per turn. */
  readonly model?: string;
  /** Attempts of a refused model call (1–10). */
  readonly maxAttempts?: number;
}

/** Gemini CLI (`@google/gemini-cli`) as an Outpost agent: headless stream-json, prompt on stdin. */
export function geminiAgent(given: GeminiAgentOptions = {}): AgentAdapter {
  const options = flattenEndpoint(given);
  return cliAgent({
    name: "gemini",
    options,
    variables: geminiVariables(options),
    features: GEMINI_FEATURES,
    cli: GEMINI_CLI,
    requiresFinishedEvent: true,
    usage: "events",
    namesConversations: true,
    // No tested release has fork: `--resume` continues the session in place.
    forkable: false,
    unsupported: (feature, agent, learned) =>
      feature === "fork"
        ? `Gemini CLI ${agent.release(learned).version ?? "(version unknown)"} cannot fork a conversation: ` +
          `no release up to ${GEMINI_FEATURES.tested.newest} has fork (only --resume, which continues it in place). Resume without fork.`
        : undefined,
    storage: () => options.storage ?? geminiConversationStore(),
    failureRules: GEMINI_FAILURE_RULES,
    command: (turn, agent) => geminiCommand(turn, options, agent),
    homeFiles: (turn) => [geminiSettings(options, turn.sharedHome === true)],
    decoder: (context) => new GeminiDecoder(GEMINI_FAILURE_RULES, context?.diagnostic),
  });
}

function geminiCommand(turn: AgentTurn, options: GeminiAgentOptions, agent: CliAgentRuntime<GeminiFeatures>): AgentCommand {
  if (turn.resume?.fork) {
    throw new OutpostError(
      "configuration",
      `Gemini CLI cannot fork a conversation: no release up to ${GEMINI_FEATURES.tested.newest} has fork (only --resume, ` +
        `which continues it in place). Resume without fork, or use an agent that supports fork.`,
    );
  }
  const args = ["--output-format", "stream-json", "--yolo"];
  const model = turn.model ?? options.model;
  if (model !== undefined) args.push("--model", model);
  if (turn.resume) args.push("--resume", uuidSessionId("Gemini CLI", turn.resume.id, "resume"));
  else if (turn.conversationId !== undefined) args.push("--session-id", uuidSessionId("Gemini CLI", turn.conversationId, "conversationId"));
  // Without -p and with stdin not a terminal, the CLI runs headless and reads the prompt from stdin.
  // On a shared home the settings file is the agent's own, outside the user's `~/.gemini`, read as system settings.
  const shared: Record<string, string> = {};
  if (turn.sharedHome === true) shared[GEMINI_SETTINGS_VARIABLE] = posix.join(turn.home, geminiSettings(options, true).path);
  return {
    executable: agent.executable,
    arguments: args,
    stdin: turn.prompt,
    variables: { ...agent.variables, ...shared },
    directory: turn.root,
  };
}

function geminiVariables(options: GeminiAgentOptions): Record<string, string> {
  return {
    // Stops the CLI from re-spawning itself with a larger heap (a second process per turn).
    GEMINI_CLI_NO_RELAUNCH: "true",
    ...(options.baseUrl === undefined ? {} : { GOOGLE_GEMINI_BASE_URL: options.baseUrl }),
    ...(options.apiKey === undefined ? {} : { GEMINI_API_KEY: options.apiKey }),
    ...options.variables,
  };
}
