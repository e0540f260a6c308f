import { realpathSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeModulesAbove, pluginPackagesIn, PLUGIN_KINDS, type PluginKind, type PluginPackage } from "@outpost/core/plugin-packages";

export { PLUGIN_KINDS };
export type { PluginKind };

/** A plugin package found on disk; only its package.json was read (cheap enough for `outpost --help`). */
export interface InstalledPlugin extends PluginPackage {
  /** True when found beside the CLI (importable by name); false when found above the working directory. */
  readonly besideCli: boolean;
}

const SCANS = Symbol.for("outpost.cli.pluginScans");

/**
 * Plugins installed beside the CLI, then in the node_modules folders above `cwd`: every package whose
 * package.json declares `"outpost": { "kind": "agent" | "provider" | "queue" | "transport", "descriptor": "<export path>" }`.
 * The first package of a name wins. The folders are read once per process and working directory (a
 * repository's node_modules holds hundreds of packages, and help, run and doctor each ask more than once).
 */
export function findPlugins<K extends PluginKind>(kind: K, cwd = process.cwd()): Array<InstalledPlugin & { readonly kind: K }> {
  return installedPlugins(cwd).filter((plugin): plugin is InstalledPlugin & { readonly kind: K } => plugin.kind === kind);
}

// Shared through globalThis: the CLI's CommonJS start and the ES module commands it loads each have their own
// copy of this module, and `outpost run` must not scan twice.
const scans = ((globalThis as { [SCANS]?: Map<string, readonly InstalledPlugin[]> })[SCANS] ??= new Map());

function installedPlugins(cwd: string): readonly InstalledPlugin[] {
  const cached = scans.get(cwd);
  if (cached !== undefined) return cached;
  const found = new Map<string, InstalledPlugin>();
  const cliRoots = nodeModulesAbove(realpathSync(dirname(fileURLToPath(import.meta.url))));
  const roots = [
    ...cliRoots.map((root) => ({ root, besideCli: true })),
    ...nodeModulesAbove(cwd).map((root) => ({ root, besideCli: false })),
  ];
  // A folder both beside the CLI and above cwd (outpost run inside its own project) is read once, as beside the CLI.
  const read = new Set<string>();
  for (const { root, besideCli } of roots) {
    if (read.has(root)) continue;
    read.add(root);
    for (const plugin of pluginPackagesIn(root)) {
      const key = `${plugin.kind}:${plugin.name}`;
      if (!found.has(key)) found.set(key, { ...plugin, besideCli });
    }
  }
  // Code-unit order, not localeCompare: its first call loads ICU collation data, 8 ms of every CLI start.
  const plugins = [...found.values()].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  scans.set(cwd, plugins);
  return plugins;
}
