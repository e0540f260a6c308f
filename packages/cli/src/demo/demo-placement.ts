import { OutpostError } from "@outpost/core";
import { findPlugins } from "../plugins/find-plugins.js";
import { installedPlugin } from "../plugins/installed-plugin.js";
import { loadDescriptor } from "../plugins/load-descriptor.js";

/**
 * Where `outpost demo --provider <name>` runs, from the provider's descriptor: the scripted model server listens
 * on this machine's loopback, so the agent runs on the host, or in a container here on the host's network
 * (`mounted`); a remote provider cannot reach it and is a usage error naming the providers that can.
 */
export async function demoPlacement(name: string): Promise<"host" | "mounted"> {
  const descriptor = await loadDescriptor(installedPlugin("provider", name));
  if (descriptor.placement !== "remote") return descriptor.placement;
  const here = await containerProviders();
  throw new OutpostError(
    "configuration",
    `outpost demo runs its agent on this machine (the scripted model server listens on its loopback), and ${name} runs sandboxes elsewhere. ` +
      `Pass --provider local${here.map((other) => ` or --provider ${other}`).join("")}; try ${name} with \`outpost run --provider ${name}\` and a key.`,
  );
}

/** The installed providers whose sandboxes are containers on this machine (`mounted`), by name. */
export async function containerProviders(): Promise<string[]> {
  const plugins = findPlugins("provider");
  // Loaded side by side: each import is mostly waiting on the disk.
  const descriptors = await Promise.all(plugins.map((plugin) => loadDescriptor(plugin).catch(() => undefined)));
  return plugins.filter((_, index) => descriptors[index]?.placement === "mounted").map((plugin) => plugin.name);
}
