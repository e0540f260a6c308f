import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { OutpostError, type AgentAdapter, type ConversationStore } from "@outpost/core";
import { AGENT_NAMES, isAgentName, type AgentName } from "./agent-names.js";

export interface AgentChoice {
  readonly name: string;
  readonly model?: string;
  /** A module exporting `createAgent(options)`, instead of a built-in name. */
  readonly module?: string;
}

type AgentModule = Record<string, unknown>;

/** Loads the agent plugin on demand (plugins are heavy; `outpost --help` must not pay for them). */
export async function loadAgent(choice: AgentChoice): Promise<AgentAdapter> {
  if (choice.module) return fromModule(choice.module, choice.model);
  if (!isAgentName(choice.name)) {
    throw new OutpostError("configuration", `Unknown agent ${JSON.stringify(choice.name)}. Choose one of ${AGENT_NAMES.join(", ")}, or pass --agent-module <path>.`);
  }
  const module = await importPlugin(`@outpost/agent-${choice.name}`, choice.name);
  const factory = module[`${choice.name}Agent`];
  if (typeof factory !== "function") {
    throw new OutpostError("configuration", `@outpost/agent-${choice.name} does not export ${choice.name}Agent(). Reinstall @outpost/cli.`);
  }
  const storage = await defaultStorage(module, choice.name);
  return (factory as (options: object) => AgentAdapter)({ ...agentOptions(choice.name), ...(choice.model ? { model: choice.model } : {}), ...(storage ? { storage } : {}) });
}

/** Endpoint settings read from the environment, so a local model server can stand in for the vendor API. */
function agentOptions(name: AgentName): Record<string, unknown> {
  const env = process.env;
  if (name === "claude") {
    return { ...(env.ANTHROPIC_BASE_URL ? { baseUrl: env.ANTHROPIC_BASE_URL } : {}), ...(env.ANTHROPIC_API_KEY ? { apiKey: env.ANTHROPIC_API_KEY } : {}), ...(env.OUTPOST_CLAUDE_EXECUTABLE ? { executable: env.OUTPOST_CLAUDE_EXECUTABLE } : {}) };
  }
  return {};
}

/** The plugin's conversation store, when it exports a factory for one (`<name>Storage` or `<name>Store`). */
async function defaultStorage(module: AgentModule, name: string): Promise<ConversationStore | undefined> {
  for (const key of [`${name}Storage`, `${name}Store`, `${name}ConversationStore`]) {
    const factory = module[key];
    if (typeof factory === "function") return (factory as () => ConversationStore)();
  }
  return undefined;
}

async function importPlugin(specifier: string, name: string): Promise<AgentModule> {
  try {
    return (await import(specifier)) as AgentModule;
  } catch (error) {
    throw new OutpostError("configuration", `Could not load the ${name} agent plugin (${specifier}): ${error instanceof Error ? error.message : String(error)}. Run \`npm install ${specifier}\` next to @outpost/cli.`, { cause: error });
  }
}

async function fromModule(path: string, model: string | undefined): Promise<AgentAdapter> {
  const module = (await import(pathToFileURL(resolve(path)).href).catch((error: unknown) => {
    throw new OutpostError("configuration", `Could not load agent module ${path}: ${error instanceof Error ? error.message : String(error)}. Check the path.`, { cause: error });
  })) as AgentModule;
  if (typeof module.createAgent !== "function") {
    throw new OutpostError("configuration", `Agent module ${path} must export createAgent(options) returning an AgentAdapter.`);
  }
  return (module.createAgent as (options: object) => AgentAdapter)(model ? { model } : {});
}
