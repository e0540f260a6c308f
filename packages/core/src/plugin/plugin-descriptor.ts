import type { AgentAdapter } from "../agent/agent-adapter.js";
import type { CliFeatureTable } from "../agent/cli-version.js";
import type { ConversationStore } from "../conversation/conversation-store.js";
import type { SandboxPlacement, SandboxProvider } from "../sandbox/sandbox-provider.js";
import type { PluginCommand } from "./plugin-command.js";

/** The version of the descriptor contract below; a host reads only descriptors of a version it knows. */
export const DESCRIPTOR_SPECIFICATION_VERSION = "v1";

/**
 * The one endpoint option shape every agent takes (`endpoint: { baseUrl, apiKey }`): a model server to use
 * instead of the vendor's API, and the key sent to it.
 */
export interface AgentEndpoint {
  readonly baseUrl: string;
  readonly apiKey?: string;
}

/** Reasoning effort of a model, where the CLI takes one. */
export type ModelReasoning = "low" | "medium" | "high";

/** A model setting besides its name that an agent's factory may apply. */
export type ModelSetting = "reasoning" | "maxOutputTokens";

/** Options a host (the CLI) hands to an agent descriptor's factory; every agent accepts these. */
export interface AgentFactoryOptions {
  readonly model?: string;
  /** Reasoning effort, for a factory whose descriptor lists `reasoning` in `modelSettings`. */
  readonly reasoning?: ModelReasoning;
  /** Largest answer in tokens, for a factory whose descriptor lists `maxOutputTokens` in `modelSettings`. */
  readonly maxOutputTokens?: number;
  readonly executable?: string;
  /** The CLI's release, when known without asking it (`--agent-version`): not probed in the sandbox then. */
  readonly version?: string;
  readonly endpoint?: AgentEndpoint;
  /** The key for the vendor's own API, when no endpoint is given (sent as the vendor's key variable). */
  readonly apiKey?: string;
  readonly storage?: ConversationStore;
}

/**
 * What an agent plugin says about itself, so that a host lists, checks and builds it without knowing it by
 * name. Exported as `descriptor` from the export path its package.json names under `"outpost"`.
 */
export interface AgentDescriptor {
  readonly specificationVersion: typeof DESCRIPTOR_SPECIFICATION_VERSION;
  readonly kind: "agent";
  /** What `--agent` takes, e.g. `claude`. */
  readonly name: string;
  /** One line for listings. */
  readonly description: string;
  /** The CLI run by default (a command name on PATH). */
  readonly executable: string;
  /** The vendor CLI's npm package and the release this plugin is pinned to, when it is on npm. */
  readonly cli?: { readonly npmPackage: string; readonly version: string };
  /** Variables a host reads for this agent: the vendor key (e.g. `OPENAI_API_KEY`), and a vendor endpoint, if any. */
  readonly variables: { readonly apiKey?: string; readonly baseUrl?: string };
  /** Per-release features, pinned and tested versions. */
  readonly features?: CliFeatureTable<unknown>;
  readonly createAgent: (options: AgentFactoryOptions) => AgentAdapter;
  /** The model settings its factory applies (`createAgent()` refuses the others rather than ignore them). */
  readonly modelSettings?: readonly ModelSetting[];
  /** The plugin's native conversation store, when it has one. */
  readonly createStore?: () => ConversationStore;
}

/** One option a provider reads, from a command-line flag (by `name`) and/or an environment variable. */
export interface ProviderOptionDescriptor {
  readonly name: string;
  readonly description: string;
  readonly environment?: string;
}

/** What a sandbox provider plugin says about itself (see AgentDescriptor). */
export interface ProviderDescriptor {
  readonly specificationVersion: typeof DESCRIPTOR_SPECIFICATION_VERSION;
  readonly kind: "provider";
  /** What `--provider` takes, e.g. `docker`. */
  readonly name: string;
  readonly description: string;
  readonly placement: SandboxPlacement;
  /** The host options this provider reads; a host refuses any other option for it. */
  readonly options: readonly ProviderOptionDescriptor[];
  /** What the provider offers, for listings and checks (e.g. `network-isolation`, `resource-limits`). */
  readonly capabilities: readonly string[];
  /** True when a default run may pick it without being asked (e.g. an engine answers); omitted: never picked by default. */
  readonly available?: () => Promise<boolean>;
  /** What `outpost doctor` reports: found or not, and what to do when not. Credentials are never printed. */
  readonly check?: () => Promise<{ readonly ok: boolean; readonly detail: string }>;
  readonly createProvider: (options: Readonly<Record<string, unknown>>) => SandboxProvider | Promise<SandboxProvider>;
  /**
   * Removes a sandbox that a dead dispatch or a killed queue attempt left behind, by the id its lease recorded
   * (`outpost clean`, `outpost recover`, queue workers). One already gone counts as removed.
   */
  readonly removeSandbox?: (id: string) => Promise<void>;
  /** Commands the provider adds to a host's command line (e.g. building images); their group is listed in package.json. */
  readonly commands?: readonly PluginCommand[];
}

export type PluginDescriptor = AgentDescriptor | ProviderDescriptor;
