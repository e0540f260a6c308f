import { OutpostError, type AgentAdapter, type AgentEndpoint, type ConversationStore } from "@outpost/core";
import { agentDescriptorOf, installedAgents } from "./installed-agents.js";
import { modelName, type AgentModel } from "./agent-model.js";

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
}

/**
 * Composes an agent from an installed agent plugin, found as the `outpost` CLI finds plugins (package.json
 * `"outpost"` fields in the node_modules folders beside the engine), so the engine names no agent package.
 */
export async function createAgent(options: CreateAgentOptions): Promise<AgentAdapter> {
  const harness = (options as Partial<CreateAgentOptions> | undefined)?.harness;
  if (typeof harness !== "string" || harness === "")
    throw new OutpostError("configuration", 'createAgent() needs harness, the name of an installed agent plugin (for example "claude").');
  const model = modelName(options.model, harness);
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
  const storage = options.storage ?? descriptor.createStore?.();
  return descriptor.createAgent({
    ...(model !== undefined ? { model } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.executable !== undefined ? { executable: options.executable } : {}),
    ...(storage ? { storage } : {}),
  });
}
