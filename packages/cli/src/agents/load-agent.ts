import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { OutpostError, type AgentAdapter, type AgentDescriptor, type AgentFactoryOptions } from "@outpost/core";
import { installedPlugin } from "../plugins/installed-plugin.js";
import { repositoryExecutable } from "./repository-executable.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";

export interface AgentChoice {
  readonly name: string;
  readonly model?: string;
  /** Model endpoint instead of the vendor's API (e.g. a local model server). */
  readonly baseUrl?: string;
  /** The agent CLI to run instead of the one on PATH. */
  readonly executable?: string;
  /** The agent CLI's release (`--agent-version`): not asked in the sandbox then. */
  readonly version?: string;
  /** For a host sandbox: where to look for the project's own `node_modules/.bin/<cli>` (the repository). */
  readonly projectDirectory?: string;
  /** A module exporting `createAgent(options)`, instead of an installed plugin. */
  readonly module?: string;
}

/** The installed agent plugin's descriptor, imported on demand (plugins are heavy; `outpost --help` must not pay for them). */
export function agentDescriptor(name: string): Promise<AgentDescriptor> {
  return loadDescriptor(installedPlugin("agent", name));
}

/** Builds the chosen agent from its descriptor, or from `--agent-module`. */
export async function loadAgent(choice: AgentChoice): Promise<AgentAdapter> {
  if (choice.module) return fromModule(choice.module, choice.model);
  const descriptor = await agentDescriptor(choice.name);
  return descriptor.createAgent(agentOptions(descriptor, choice));
}

/** `OUTPOST_<AGENT>_…`: the agent's name upper-cased, anything but letters and digits as `_`. */
export function agentVariablePrefix(name: string): string {
  return `OUTPOST_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`;
}

/**
 * Endpoint, key and executable from the command line and the environment, in the one endpoint shape every
 * agent takes. OUTPOST_API_KEY wins over the variable the descriptor names for the vendor's key.
 */
export function agentOptions(descriptor: AgentDescriptor, choice: AgentChoice): AgentFactoryOptions {
  const env = process.env;
  const prefix = agentVariablePrefix(descriptor.name);
  const vendorBaseUrl = descriptor.variables.baseUrl === undefined ? undefined : env[descriptor.variables.baseUrl];
  const baseUrl = choice.baseUrl ?? env[`${prefix}_BASE_URL`] ?? vendorBaseUrl;
  const apiKey = env.OUTPOST_API_KEY ?? (descriptor.variables.apiKey === undefined ? undefined : env[descriptor.variables.apiKey]);
  const executable =
    choice.executable ??
    env[`${prefix}_EXECUTABLE`] ??
    (choice.projectDirectory === undefined ? undefined : repositoryExecutable(descriptor.executable, choice.projectDirectory));
  return {
    ...(executable ? { executable } : {}),
    ...(choice.version ? { version: choice.version } : {}),
    ...(choice.model ? { model: choice.model } : {}),
    ...(baseUrl ? { endpoint: { baseUrl, ...(apiKey ? { apiKey } : {}) } } : apiKey ? { apiKey } : {}),
  };
}

async function fromModule(path: string, model: string | undefined): Promise<AgentAdapter> {
  const module = (await import(pathToFileURL(resolve(path)).href).catch((error: unknown) => {
    throw new OutpostError(
      "configuration",
      `Could not load agent module ${path}: ${error instanceof Error ? error.message : String(error)}. Check the path.`,
      { cause: error },
    );
  })) as Record<string, unknown>;
  if (typeof module.createAgent !== "function") {
    throw new OutpostError("configuration", `Agent module ${path} must export createAgent(options) returning an AgentAdapter.`);
  }
  return (module.createAgent as (options: object) => AgentAdapter)(model ? { model } : {});
}
