import {
  OutpostError,
  type AgentAdapter,
  type AgentDescriptor,
  type AgentFactoryOptions,
  type ConversationStore,
  type PluginDescriptor,
  type ProviderDescriptor,
  type SandboxProvider,
} from "@outpost/core";
import type { DispatchJob } from "./dispatch-job.js";

export interface ResolvedPlugins {
  readonly agent: AgentAdapter;
  readonly store?: ConversationStore;
  readonly provider: SandboxProvider;
}

/**
 * Builds the job's agent and provider from the worker's descriptors: the job's options, under the worker's
 * own defaults for that agent (its keys and endpoint), which the job cannot override.
 */
export async function resolvePlugins(
  job: DispatchJob,
  plugins: readonly PluginDescriptor[],
  agentDefaults: Readonly<Record<string, AgentFactoryOptions>>,
): Promise<ResolvedPlugins> {
  const agentDescriptor = find(plugins, "agent", job.agent.name) as AgentDescriptor;
  const providerDescriptor = find(plugins, "provider", job.provider.name) as ProviderDescriptor;
  const providerOptions = job.provider.options ?? {};
  const declared = new Set(providerDescriptor.options.map((option) => option.name));
  for (const name of Object.keys(providerOptions)) {
    if (!declared.has(name))
      throw new OutpostError(
        "configuration",
        `Provider ${providerDescriptor.name} takes no option ${JSON.stringify(name)}; it takes: ${[...declared].join(", ") || "none"}.`,
        { details: { provider: providerDescriptor.name, option: name } },
      );
  }
  const workerOptions = agentDefaults[agentDescriptor.name] ?? {};
  const jobOptions = (job.agent.options ?? {}) as AgentFactoryOptions;
  const store = workerOptions.storage ?? agentDescriptor.createStore?.();
  const endpoint = workerOptions.endpoint ?? jobOptions.endpoint;
  const agent = agentDescriptor.createAgent({
    ...jobOptions,
    ...workerOptions,
    ...(endpoint ? { endpoint: { ...jobOptions.endpoint, ...workerOptions.endpoint } as AgentFactoryOptions["endpoint"] } : {}),
    ...(store ? { storage: store } : {}),
  });
  const provider = await providerDescriptor.createProvider(providerOptions);
  return { agent, provider, ...(store ? { store } : {}) };
}

function find(plugins: readonly PluginDescriptor[], kind: PluginDescriptor["kind"], name: string): PluginDescriptor {
  const found = plugins.find((plugin) => plugin.kind === kind && plugin.name === name);
  if (found) return found;
  const names = plugins.filter((plugin) => plugin.kind === kind).map((plugin) => plugin.name);
  throw new OutpostError(
    "configuration",
    `This worker has no ${kind} ${JSON.stringify(name)}; it has: ${names.join(", ") || "none"}. Install the plugin on the workers or choose one of those.`,
    { details: { kind, name, available: names } },
  );
}
