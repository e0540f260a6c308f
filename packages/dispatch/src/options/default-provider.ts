import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { DESCRIPTOR_SPECIFICATION_VERSION, OutpostError, type ProviderDescriptor } from "@outpost/core";
import { nodeModulesAbove, pluginPackagesIn, type PluginPackage } from "@outpost/core/plugin-packages";
import type { DispatchOptions, ProvidedOptions } from "../dispatch-options.js";

/** The provider plugin (by its plugin name) dispatch() uses when none is given, and the package that ships it. */
export const DEFAULT_PROVIDER = "docker";
export const DEFAULT_PROVIDER_PACKAGE = "@outpost/provider-docker";

/** How the default provider is found and loaded; tests hand in their own. */
export interface ProviderDiscovery {
  /** The installed provider plugin of that name, or undefined. */
  readonly find: (name: string) => PluginPackage | undefined;
  /** The module at the plugin's descriptor export. */
  readonly load: (plugin: PluginPackage) => Promise<{ readonly descriptor?: unknown }>;
}

/**
 * Installed plugins beside the engine: the node_modules folders Node searches from this module, read as
 * the CLI reads them (package.json `"outpost"` fields), so the engine depends on no provider package.
 */
export const installedProviders: ProviderDiscovery = {
  find: (name) => findProviderPlugin(name, nodeModulesAbove(realpathSync(dirname(fileURLToPath(import.meta.url))))),
  // Found in a folder this module's resolution searches, in the same order: importable by its name.
  load: (plugin) => import(plugin.descriptorPath === "." ? plugin.packageName : `${plugin.packageName}${plugin.descriptorPath.slice(1)}`),
};

/** The first provider plugin named `name` in `roots` (nearest first, as Node resolves). */
export function findProviderPlugin(name: string, roots: readonly string[]): PluginPackage | undefined {
  for (const root of roots)
    for (const plugin of pluginPackagesIn(root)) if (plugin.kind === "provider" && plugin.name === name) return plugin;
  return undefined;
}

/**
 * Fills in `sandboxProvider` when the caller left it out: the installed `docker` provider plugin, built from
 * its descriptor with no options; otherwise a `configuration` error naming the package to install.
 */
export async function withDefaultProvider(
  options: DispatchOptions,
  discovery: ProviderDiscovery = installedProviders,
): Promise<ProvidedOptions> {
  if (!options || typeof options !== "object" || options.sandboxProvider !== undefined) return options as ProvidedOptions;
  const plugin = discovery.find(DEFAULT_PROVIDER);
  if (plugin === undefined)
    throw new OutpostError(
      "configuration",
      `No sandboxProvider was given and the default provider, ${DEFAULT_PROVIDER} (${DEFAULT_PROVIDER_PACKAGE}), is not installed beside @outpost/dispatch. ` +
        `Install it (npm install ${DEFAULT_PROVIDER_PACKAGE}) or pass sandboxProvider (for example localProvider() from @outpost/provider-local).`,
      { details: { provider: DEFAULT_PROVIDER, package: DEFAULT_PROVIDER_PACKAGE } },
    );
  let module: { readonly descriptor?: unknown };
  try {
    module = await discovery.load(plugin);
  } catch (cause) {
    throw new OutpostError(
      "configuration",
      `The default provider ${plugin.packageName} (${plugin.directory}) could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}. ` +
        "Reinstall it, or pass sandboxProvider.",
      { cause, details: { package: plugin.packageName } },
    );
  }
  return { ...options, sandboxProvider: await providerDescriptor(module.descriptor, plugin).createProvider({}) };
}

/** The plugin's descriptor when it is a provider descriptor this engine reads, else a `configuration` error. */
function providerDescriptor(descriptor: unknown, plugin: PluginPackage): ProviderDescriptor {
  const candidate = descriptor as Partial<ProviderDescriptor> | null | undefined;
  if (
    typeof candidate === "object" &&
    candidate !== null &&
    candidate.kind === "provider" &&
    candidate.specificationVersion === DESCRIPTOR_SPECIFICATION_VERSION &&
    typeof candidate.createProvider === "function"
  )
    return candidate as ProviderDescriptor;
  throw new OutpostError(
    "configuration",
    `${plugin.packageName} has no provider descriptor of specificationVersion "${DESCRIPTOR_SPECIFICATION_VERSION}": its version does not match this engine. ` +
      "Install versions that agree, or pass sandboxProvider.",
    { details: { package: plugin.packageName } },
  );
}
