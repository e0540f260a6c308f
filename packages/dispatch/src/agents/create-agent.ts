import {
  OutpostError,
  type AgentAdapter,
  type AgentCommand,
  type AgentEndpoint,
  type AgentTurn,
  type ConversationStore,
  type CustomAgent,
} from "@outpost/core";
import { agentDescriptorOf, installedAgents } from "./installed-agents.js";
import { checkModel, type AgentModel } from "./agent-model.js";
import { refuseUnknownFields } from "../options/unknown-fields.js";

/** What a custom request() is given besides the turn: the harness's own request and the checked model. */
export interface HarnessRequest {
  /** The command the harness itself would run for a turn (it throws `configuration` for what its CLI cannot do). */
  command(turn: AgentTurn): AgentCommand;
  /** The model as given to createAgent(), checked; its reasoning and maxOutputTokens are for request() to apply. */
  readonly model?: Exclude<AgentModel, string>;
}

/** Options of `createAgent()`: a named harness (an installed agent plugin) composed with a model. */
export interface CreateAgentOptions {
  /** The plugin's name as `outpost --agent` takes it: `claude`, `codex`, … */
  readonly harness: string;
  readonly model?: AgentModel;
  /** Where the model is served, and its key. */
  readonly endpoint?: AgentEndpoint;
  /** The key of the vendor's own API, when no endpoint is given. */
  readonly apiKey?: string;
  /** The CLI to run instead of the plugin's default command. */
  readonly executable?: string;
  /** Conversation storage; default the plugin's own store, so `resume()` and `fork()` work in any sandbox. */
  readonly storage?: ConversationStore;
  /**
   * Builds each turn's process instead of the harness (a custom agent, page 003): given the turn and the
   * harness's own request, it returns the command to run. The harness still decodes the output.
   */
  readonly request?: (turn: AgentTurn, harness: HarnessRequest) => AgentCommand;
  /** The fork hook: copies a conversation in the sandbox and returns the copy's id (see `CustomAgent.fork`). */
  readonly fork?: CustomAgent["fork"];
}

const FIELDS = [
  "harness",
  "model",
  "endpoint",
  "apiKey",
  "executable",
  "storage",
  "request",
  "fork",
] as const satisfies readonly (keyof CreateAgentOptions)[];

/**
 * Composes an agent from an installed agent plugin, found as the `outpost` CLI finds plugins (package.json
 * `"outpost"` fields in the node_modules folders beside the engine), so the engine names no agent package.
 * With `request` or `fork` the result is a custom agent (kind `custom`) over the harness: its request builds
 * the turns, the harness's decoder, store, failure rules and features do the rest.
 */
export async function createAgent(
  options: CreateAgentOptions &
    ({ readonly request: NonNullable<CreateAgentOptions["request"]> } | { readonly fork: NonNullable<CreateAgentOptions["fork"]> }),
): Promise<CustomAgent>;
export async function createAgent(options: CreateAgentOptions): Promise<AgentAdapter | CustomAgent>;
export async function createAgent(options: CreateAgentOptions): Promise<AgentAdapter | CustomAgent> {
  const harness = (options as Partial<CreateAgentOptions> | undefined)?.harness;
  if (typeof harness !== "string" || harness === "")
    throw new OutpostError("configuration", 'createAgent() needs harness, the name of an installed agent plugin (for example "claude").');
  refuseUnknownFields(options, "createAgent()", FIELDS);
  for (const hook of ["request", "fork"] as const)
    if (options[hook] !== undefined && typeof options[hook] !== "function")
      throw new OutpostError("configuration", `createAgent(): ${hook} must be a function, or be left out.`);
  const custom = options.request !== undefined || options.fork !== undefined;
  const plugins = installedAgents();
  const plugin = plugins.find((candidate) => candidate.name === harness);
  if (plugin === undefined)
    throw new OutpostError(
      "configuration",
      `No agent plugin named ${JSON.stringify(harness)} is installed beside @outpost/dispatch (installed: ${plugins.map((p) => p.name).join(", ") || "none"}). ` +
        `Install it (npm install @outpost/agent-${harness}), or pass an agent built by its package.`,
      { details: { harness, installed: plugins.map((p) => p.name) } },
    );
  const descriptor = await agentDescriptorOf(plugin);
  const applied = descriptor.modelSettings ?? [];
  const model = checkModel(options.model, harness, applied, options.request !== undefined);
  const storage = options.storage ?? descriptor.createStore?.();
  const base = descriptor.createAgent({
    ...(model !== undefined ? { model: model.name } : {}),
    // The settings the factory applies; any other reached this point only with request(), which gets them all.
    ...(model?.reasoning !== undefined && applied.includes("reasoning") ? { reasoning: model.reasoning } : {}),
    ...(model?.maxOutputTokens !== undefined && applied.includes("maxOutputTokens") ? { maxOutputTokens: model.maxOutputTokens } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.executable !== undefined ? { executable: options.executable } : {}),
    ...(storage ? { storage } : {}),
  });
  if (!custom) return base;
  return harnessCustomAgent(base, options.request, options.fork, model);
}

/** A custom agent over a harness's adapter: its own request and fork hook, the harness's everything else. */
function harnessCustomAgent(
  base: AgentAdapter,
  request: CreateAgentOptions["request"],
  fork: CreateAgentOptions["fork"],
  model: Exclude<AgentModel, string> | undefined,
): CustomAgent {
  const harness: HarnessRequest = { command: (turn) => base.command(turn), ...(model ? { model } : {}) };
  const { kind: _cli, command: _command, liveInput: _live, createDecoder: _decoder, ...features } = base;
  return {
    ...features,
    kind: "custom",
    request: request ? (turn) => request(turn, harness) : (turn) => base.command(turn),
    createDecoder: (context) => base.createDecoder(context),
    ...(base.homeFiles ? { homeFiles: (turn: AgentTurn) => base.homeFiles!(turn) } : {}),
    ...(base.unsupported ? { unsupported: base.unsupported.bind(base) } : {}),
    ...(base.cliWarnings ? { cliWarnings: base.cliWarnings.bind(base) } : {}),
    // The hook makes the copy, so what the harness's CLI release can fork no longer matters.
    ...(fork ? { fork, forkable: true } : {}),
  };
}
