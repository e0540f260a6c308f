import { OutpostError } from "@outpost/core";
import { findPlugins } from "../plugins/find-plugins.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";

/**
 * Removes a sandbox a dead dispatch left (`outpost clean`, `outpost recover`) through the provider that made
 * it, by the name its record holds: the installed descriptor's `removeSandbox`.
 */
export async function removeSandbox(id: string, provider: string): Promise<void> {
  // A provider's modes may name their sandboxes `<name>-<mode>`: the descriptor is the one of `<name>`.
  const plugin = findPlugins("provider").find((candidate) => candidate.name === provider || provider.startsWith(`${candidate.name}-`));
  if (plugin === undefined)
    throw new OutpostError(
      "configuration",
      `Sandbox ${id.slice(0, 12)} was made by provider ${JSON.stringify(provider)}, which is not installed here. Install its plugin next to outpost and clean again.`,
      { details: { provider, sandbox: id } },
    );
  const descriptor = await loadDescriptor(plugin);
  if (descriptor.removeSandbox === undefined)
    throw new OutpostError(
      "configuration",
      `Provider ${provider} cannot remove sandbox ${id.slice(0, 12)} (its plugin offers no removeSandbox). Remove it with that provider's own tools.`,
      { details: { provider, sandbox: id } },
    );
  await descriptor.removeSandbox(id);
}
