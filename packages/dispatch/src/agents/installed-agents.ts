import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { DESCRIPTOR_SPECIFICATION_VERSION, OutpostError, type AgentDescriptor } from "@outpost/core";
import { nodeModulesAbove, pluginPackagesIn, type PluginPackage } from "@outpost/core/plugin-packages";

/**
 * Agent plugins beside the engine, found as the `outpost` CLI finds plugins (package.json `"outpost"` fields in
 * the node_modules folders Node searches from here, nearest first; one name once), so the engine names none.
 */
export function installedAgents(): PluginPackage[] {
  const seen = new Set<string>();
  return nodeModulesAbove(realpathSync(dirname(fileURLToPath(import.meta.url))))
    .flatMap((root) => pluginPackagesIn(root))
    .filter((plugin) => plugin.kind === "agent" && !seen.has(plugin.name) && seen.add(plugin.name));
}

/** The installed agent plugin's descriptor, imported by package name (it is in a folder this module's resolution searches). */
export async function agentDescriptorOf(plugin: PluginPackage): Promise<AgentDescriptor> {
  const specifier = plugin.descriptorPath === "." ? plugin.packageName : `${plugin.packageName}${plugin.descriptorPath.slice(1)}`;
  let module: { readonly descriptor?: unknown };
  try {
    module = (await import(specifier)) as { readonly descriptor?: unknown };
  } catch (cause) {
    throw new OutpostError(
      "configuration",
      `The agent plugin ${plugin.packageName} (${plugin.directory}) could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}. Reinstall it.`,
      { cause, details: { package: plugin.packageName } },
    );
  }
  const candidate = module.descriptor as Partial<AgentDescriptor> | null | undefined;
  if (
    candidate?.kind === "agent" &&
    candidate.specificationVersion === DESCRIPTOR_SPECIFICATION_VERSION &&
    typeof candidate.createAgent === "function"
  )
    return candidate as AgentDescriptor;
  throw new OutpostError(
    "configuration",
    `${plugin.packageName} does not export an agent descriptor this engine reads (specificationVersion ${DESCRIPTOR_SPECIFICATION_VERSION}). Update the plugin or @outpost/dispatch.`,
    { details: { package: plugin.packageName } },
  );
}
