import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { OutpostError, type AgentAdapter, type ConversationStore } from "@outpost/core";
import { AGENT_NAMES, isAgentName, type AgentName } from "./agent-names.js";

export interface AgentChoice {
  readonly name: string;
  readonly model?: string;
  /** Model endpoint instead of the vendor's API (e.g. a local model server). */
  readonly baseUrl?: string;
  /** The agent CLI to run instead of the one on PATH. */
  readonly executable?: string;
  /** A module exporting `createAgent(options)`, instead of a built-in name. */
  readonly module?: string;
}

type AgentModule = Record<string, unknown>;

/** Loads the agent plugin on demand (plugins are heavy; `outpost --help` must not pay for them). */
export async function loadAgent(choice: AgentChoice): Promise<AgentAdapter> {
  const name = choice.name;
  if (choice.module) return fromModule(choice.module, choice.model);
  if (!isAgentName(name)) {
    throw new OutpostError("configuration", `Unknown agent ${JSON.stringify(choice.name)}. Choose one of ${AGENT_NAMES.join(", ")}, or pass --agent-module <path>.`);
  }
  const module = await importPlugin(`@outpost/agent-${name}`, name);
  const factory = module[`${choice.name}Agent`];
  if (typeof factory !== "function") {
    throw new OutpostError("configuration", `@outpost/agent-${choice.name} does not export ${choice.name}Agent(). Reinstall @outpost/cli.`);
  }
  const storage = await defaultStorage(module, choice.name);
  return (factory as (options: object) => AgentAdapter)({ ...agentOptions({ ...choice, name }), ...(choice.model ? { model: choice.model } : {}), ...(storage ? { storage } : {}) });
}

// Where each agent's key is usually found; OUTPOST_API_KEY wins for any agent.
const KEY_VARIABLES: Readonly<Record<AgentName, string>> = {
  claude: "ANTHROPIC_API_KEY", codex: "OPENAI_API_KEY", copilot: "OPENAI_API_KEY", gemini: "GEMINI_API_KEY", opencode: "OPENAI_API_KEY", kimi: "KIMI_API_KEY",
};

/**
 * Endpoint, key and executable from the command line and the environment, shaped the way each plugin
 * takes them: `baseUrl`/`apiKey` (claude, codex, gemini) or `endpoint: { baseUrl, apiKey }` (the others).
 */
function agentOptions(choice: AgentChoice & { name: AgentName }): Record<string, unknown> {
  const env = process.env;
  const prefix = `OUTPOST_${choice.name.toUpperCase()}`;
  const baseUrl = choice.baseUrl ?? env[`${prefix}_BASE_URL`] ?? (choice.name === "claude" ? env.ANTHROPIC_BASE_URL : undefined);
  const apiKey = env.OUTPOST_API_KEY ?? env[KEY_VARIABLES[choice.name]];
  const executable = choice.executable ?? env[`${prefix}_EXECUTABLE`];
  const options: Record<string, unknown> = executable ? { executable } : {};
  if (choice.name === "claude" || choice.name === "codex" || choice.name === "gemini") {
    if (baseUrl) options.baseUrl = baseUrl;
    if (apiKey) options.apiKey = apiKey;
  } else if (baseUrl) {
    options.endpoint = { baseUrl, ...(apiKey ? { apiKey } : {}) };
  }
  return options;
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
