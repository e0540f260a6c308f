import { OutpostError } from "@outpost/core";
import type { AgentAdapter, AgentCommand, AgentTurn, ConversationStore } from "@outpost/core";
import { kimiConversationStore } from "./kimi-conversation-store.js";
import { KimiDecoder } from "./kimi-decoder.js";

/** An OpenAI-compatible (or Kimi / Anthropic) endpoint, given to Kimi Code through its `KIMI_MODEL_*` variables. */
export interface KimiEndpoint {
  readonly baseUrl: string;
  /** Passed as a variable, never written to a file. */
  readonly apiKey: string;
  /** Default `openai`. */
  readonly type?: "kimi" | "openai" | "anthropic";
  /** Context window declared for the model. */
  readonly contextTokens?: number;
}

export interface KimiAgentOptions {
  /** Without an endpoint Kimi Code uses the providers of its own `config.toml` (e.g. after `kimi login`). */
  readonly endpoint?: KimiEndpoint;
  /** Default model (a config alias, or the model id sent to the endpoint); a turn's `model` wins. */
  readonly model?: string;
  /** Extra variables for every command (credentials go here, never into files). */
  readonly variables?: Readonly<Record<string, string>>;
  /** Captures and restores sessions. Default: the Kimi Code session-bundle store. */
  readonly storage?: ConversationStore;
  /** Default `kimi`. */
  readonly executable?: string;
}

/** Kimi Code CLI as an Outpost agent. Built from its documentation: no Kimi CLI is installable here. */
export function kimiAgent(options: KimiAgentOptions = {}): AgentAdapter {
  const variables = Object.freeze(kimiVariables(options));
  return {
    kind: "cli",
    specificationVersion: "v1",
    name: "kimi",
    executable: options.executable ?? "kimi",
    // Kimi Code is not published on npm (checked): nothing to install in a remote sandbox.
    // Its stream-json output has no final event and no usage.
    requiresFinishedEvent: false,
    usage: "unavailable",
    variables,
    resumable: true,
    forkable: false,
    // Its variables may move the CLI home (KIMI_CODE_HOME): the store looks for sessions there.
    storage: options.storage ?? kimiConversationStore({ variables }),
    failureRules: [],
    command(turn: AgentTurn): AgentCommand {
      if (turn.resume?.fork) {
        throw new OutpostError(
          "configuration",
          "Kimi Code cannot fork a session (its CLI has no fork option). Continue the conversation instead, or use an agent that supports fork.",
          {
            details: { agent: "kimi", id: turn.resume.id },
          },
        );
      }
      const model = turn.model ?? options.model;
      const args = ["--output-format", "stream-json"];
      // With an endpoint the model id travels in KIMI_MODEL_NAME; `--model` would name a config alias.
      if (model !== undefined && options.endpoint === undefined) args.push("--model", model);
      if (turn.resume !== undefined) args.push("--session", assertSessionId(turn.resume.id));
      // `kimi -p` takes the prompt as its option value (the documented non-interactive form).
      args.push("--prompt", turn.prompt);
      const turnVariables = options.endpoint !== undefined && model !== undefined ? { ...variables, KIMI_MODEL_NAME: model } : variables;
      return { executable: options.executable ?? "kimi", arguments: args, variables: turnVariables, directory: turn.root };
    },
    createDecoder: () => new KimiDecoder(),
  };
}

// A leading dash would be read as another option.
function assertSessionId(id: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(id)) {
    throw new OutpostError(
      "configuration",
      `${JSON.stringify(id)} is not a Kimi session id. Pass the id of a session found under the Kimi home (sessions/<bucket>/<id>/).`,
      {
        details: { agent: "kimi" },
      },
    );
  }
  return id;
}

function kimiVariables(options: KimiAgentOptions): Record<string, string> {
  const variables: Record<string, string> = { KIMI_DISABLE_TELEMETRY: "1" };
  const endpoint = options.endpoint;
  if (endpoint !== undefined) {
    variables["KIMI_MODEL_PROVIDER_TYPE"] = endpoint.type ?? "openai";
    variables["KIMI_MODEL_BASE_URL"] = endpoint.baseUrl;
    variables["KIMI_MODEL_API_KEY"] = endpoint.apiKey;
    if (endpoint.contextTokens !== undefined) variables["KIMI_MODEL_MAX_CONTEXT_SIZE"] = String(endpoint.contextTokens);
    if (options.model !== undefined) variables["KIMI_MODEL_NAME"] = options.model;
  }
  return { ...variables, ...options.variables };
}
