import { OutpostError } from "@outpost/core";
import { findPlugins, type InstalledPlugin, type PluginKind } from "./find-plugins.js";

/** The installed plugin of that kind and name, or a configuration error listing what is installed. */
export function installedPlugin<K extends PluginKind>(kind: K, name: string): InstalledPlugin & { readonly kind: K } {
  const installed = findPlugins(kind);
  const plugin = installed.find((candidate) => candidate.name === name);
  if (plugin !== undefined) return plugin;
  const names = installed.map((candidate) => candidate.name).join(", ") || "none";
  const hint = kind === "agent" ? ", or pass --agent-module <path>" : "";
  throw new OutpostError(
    "configuration",
    `Unknown ${kind} ${JSON.stringify(name)}. Installed ${kind}s: ${names}. Choose one of them${hint}, or install the plugin (npm install <package>) next to outpost.`,
    {
      details: { kind, name, installed: installed.map((candidate) => candidate.name) },
    },
  );
}
