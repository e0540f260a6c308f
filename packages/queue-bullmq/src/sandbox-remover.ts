import { OutpostError, type PluginDescriptor, type ProviderDescriptor } from "@outpost/core";

/**
 * Removes a sandbox a killed attempt left, through the worker's descriptor of the provider that made it (its
 * record names it; `<name>-<mode>` is a mode of the provider `<name>`), so reaping needs no provider by name.
 */
export function sandboxRemover(plugins: readonly PluginDescriptor[]): (id: string, provider: string) => Promise<void> {
  return async (id, provider) => {
    const descriptor = plugins.find(
      (plugin): plugin is ProviderDescriptor =>
        plugin.kind === "provider" && (plugin.name === provider || provider.startsWith(`${plugin.name}-`)),
    );
    if (descriptor?.removeSandbox === undefined)
      throw new OutpostError(
        "configuration",
        `Sandbox ${id.slice(0, 12)} of provider ${JSON.stringify(provider)} cannot be removed by this worker (no such provider, ` +
          `or it offers no removeSandbox). Remove it with that provider's own tools.`,
        { details: { provider, sandbox: id } },
      );
    await descriptor.removeSandbox(id);
  };
}
