import { cliReleaseResolver, OutpostError, flattenEndpoint, type EndpointOptions } from "@outpost/core";
import { GEMINI_FEATURES } from "./gemini-features.js";
import { geminiConversationStore } from "./gemini-conversation-store.js";
import type { AgentAdapter, AgentCommand, AgentTurn, ConversationStore, DecoderContext } from "@outpost/core";
import { GeminiDecoder } from "./gemini-decoder.js";
import { GEMINI_FAILURE_RULES } from "./gemini-failure-rules.js";
import { GEMINI_SETTINGS_VARIABLE, geminiSettings } from "./gemini-settings.js";
import { posix } from "node:path";
import { GEMINI_CLI } from "./gemini-version.js";

export interface GeminiAgentOptions extends EndpointOptions {
  /** Gemini API-compatible endpoint, e.g. `http://127.0.0.1:18181`. Omitted: Google's API. */
  readonly baseUrl?: string;
  /** Sent as `GEMINI_API_KEY`, a variable only. */
  readonly apiKey?: string;
  /** Default model; a turn's `model` wins. Omitted: `auto`, which adds a routing call per turn. */
  readonly model?: string;
  /** Default `gemini`. */
  readonly executable?: string;
  /** The CLI release that runs, when known without asking it (e.g. an image). Omitted: `<executable> --version`. */
  readonly version?: string;
  /** Attempts of a refused model call (1–10). */
  readonly maxAttempts?: number;
  readonly variables?: Readonly<Record<string, string>>;
  /** Captures and restores sessions. Default: the native store of this CLI's session files. */
  readonly storage?: ConversationStore;
}

const SESSION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Gemini CLI (`@google/gemini-cli`) as an Outpost agent: headless stream-json, prompt on stdin. */
export function geminiAgent(given: GeminiAgentOptions = {}): AgentAdapter {
  const options = flattenEndpoint(given);
  const variables = Object.freeze(geminiVariables(options));
  const executable = options.executable ?? "gemini";
  const release = cliReleaseResolver(GEMINI_FEATURES, {
    executable,
    variables,
    ...(options.version === undefined ? {} : { version: options.version }),
  });
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "gemini",
    executable,
    bootstrap: "gemini",
    cli: GEMINI_CLI,
    requiresFinishedEvent: true,
    usage: "events",
    variables,
    resumable: true,
    namesConversations: true,
    // No tested release has fork: `--resume` continues the session in place.
    get forkable() {
      return release().features.fork;
    },
    unsupported: (feature) =>
      feature === "fork" && !release().features.fork
        ? `Gemini CLI ${release().version ?? GEMINI_FEATURES.pinned} cannot fork a conversation: ` +
          `no release up to ${GEMINI_FEATURES.tested.newest} has fork (only --resume, which continues it in place). Resume without fork.`
        : undefined,
    storage: options.storage ?? geminiConversationStore(),
    failureRules: GEMINI_FAILURE_RULES,
    command: (turn) => geminiCommand(turn, options, variables),
    homeFiles: (turn) => [geminiSettings(options, turn.sharedHome === true)],
    createDecoder(context?: DecoderContext) {
      for (const warning of release().warnings) context?.diagnostic?.(warning);
      return new GeminiDecoder(GEMINI_FAILURE_RULES, context?.diagnostic);
    },
  };
}

function geminiCommand(turn: AgentTurn, options: GeminiAgentOptions, variables: Readonly<Record<string, string>>): AgentCommand {
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
  if (turn.resume) args.push("--resume", sessionId(turn.resume.id, "resume"));
  else if (turn.conversationId !== undefined) args.push("--session-id", sessionId(turn.conversationId, "conversationId"));
  // Without -p and with stdin not a terminal, the CLI runs headless and reads the prompt from stdin.
  // On a shared home the settings file is the agent's own, outside the user's `~/.gemini`, read as system settings.
  const shared: Record<string, string> = {};
  if (turn.sharedHome === true) shared[GEMINI_SETTINGS_VARIABLE] = posix.join(turn.home, geminiSettings(options, true).path);
  return {
    executable: options.executable ?? "gemini",
    arguments: args,
    stdin: turn.prompt,
    variables: { ...variables, ...shared },
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

function sessionId(id: string, field: string): string {
  if (!SESSION_ID.test(id)) {
    throw new OutpostError(
      "configuration",
      `Gemini CLI session ids are UUIDs; ${field} ${JSON.stringify(id.slice(0, 80))} is not one. Pass the id from the turn's conversation event.`,
      {
        details: { field },
      },
    );
  }
  return id;
}
