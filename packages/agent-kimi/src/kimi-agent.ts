import { OutpostError } from "@outpost/core";
import { cliAgent, type CliAgentOptions } from "@outpost/plugin-utils";
import type { AgentAdapter } from "@outpost/core";
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

export interface KimiAgentOptions extends Omit<CliAgentOptions, "version"> {
  /** Without an endpoint Kimi Code uses the providers of its own `config.toml` (e.g. after `kimi login`). */
  readonly endpoint?: KimiEndpoint;
  /** Default model (a config alias, or the model id sent to the endpoint); a turn's `model` wins. */
  readonly model?: string;
}

/** Kimi Code CLI as an Outpost agent. Built from its documentation: no Kimi CLI is installable here. */
export function kimiAgent(options: KimiAgentOptions = {}): AgentAdapter {
  return cliAgent({
    name: "kimi",
    options,
    variables: kimiVariables(options),
    // Kimi Code is not published on npm (checked): nothing to install in a remote sandbox, no release table.
    // Its stream-json output has no final event and no usage.
    requiresFinishedEvent: false,
    usage: "unavailable",
    forkable: false,
    // Its variables may move the CLI home (KIMI_CODE_HOME): the store looks for sessions there.
    storage: (agent) => options.storage ?? kimiConversationStore({ variables: agent.variables }),
    failureRules: [],
    command(turn, agent) {
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
      const variables =
        options.endpoint !== undefined && model !== undefined ? { ...agent.variables, KIMI_MODEL_NAME: model } : agent.variables;
      return { executable: agent.executable, arguments: args, variables, directory: turn.root };
    },
    decoder: () => new KimiDecoder(),
  });
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
