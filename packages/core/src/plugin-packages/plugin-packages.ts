// Installed Outpost plugins, found by reading package.json files only (nothing is imported). The CLI lists
// them for `outpost --help`, and the engine finds its default sandbox provider the same way, so neither
// names a plugin package. This module imports only Node builtins: the CLI's CommonJS start inlines it, and
// must not load the rest of @outpost/core (see packages/cli/package.json `outpostBundle`).
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** The kinds of plugin a package.json may declare under `"outpost"`. */
export const PLUGIN_KINDS = ["agent", "provider", "queue", "transport"] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

/** A plugin package on disk, as its package.json declares it. */
export interface PluginPackage {
  readonly kind: PluginKind;
  /** What `--agent` / `--provider` takes: `outpost.name`, else the package name without scope and prefix. */
  readonly name: string;
  readonly packageName: string;
  readonly directory: string;
  /** The export path (`.` or `./descriptor`) whose module exports `descriptor`. */
  readonly descriptorPath: string;
  /** Command groups the plugin adds (`outpost <group> …`), with the one-line description help shows. */
  readonly commands: Readonly<Record<string, string>>;
}

/** The `node_modules` folders Node's resolution would search from `start`, nearest first. */
export function nodeModulesAbove(start: string): string[] {
  const roots: string[] = [];
  for (let directory = start; ; directory = dirname(directory)) {
    if (!directory.endsWith("/node_modules")) roots.push(join(directory, "node_modules"));
    if (dirname(directory) === directory) return roots;
  }
}

/** The plugin packages directly under one `node_modules` folder (a missing folder has none). */
export function pluginPackagesIn(nodeModules: string): PluginPackage[] {
  return packageDirectories(nodeModules)
    .map(readPluginPackage)
    .filter((plugin): plugin is PluginPackage => plugin !== undefined);
}

/** The package folders under `root` whose names a plugin may have (see `mayBePlugin`). */
function packageDirectories(root: string): string[] {
  return safeList(root).flatMap((entry) =>
    entry.startsWith("@")
      ? safeList(join(root, entry))
          .filter((name) => mayBePlugin(entry, name))
          .map((name) => join(root, entry, name))
      : entry.startsWith(".") || !mayBePlugin(undefined, entry)
        ? []
        : [join(root, entry)],
  );
}

/**
 * Plugin packages are named `@outpost/…`, or `[@scope/]outpost-…`, `[@scope/]agent-…`, `[@scope/]provider-…`,
 * `[@scope/]queue-…`, `[@scope/]transport-…`: only those package.json files are read, so a scan costs the same
 * beside a thousand dependencies.
 */
function mayBePlugin(scope: string | undefined, name: string): boolean {
  return scope === "@outpost" || /^(outpost-|agent-|provider-|queue-|transport-)/.test(name);
}

function safeList(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

/** The plugin a package folder declares, or undefined when it is no plugin (or unreadable). */
export function readPluginPackage(directory: string): PluginPackage | undefined {
  let manifest: { name?: unknown; outpost?: { kind?: unknown; name?: unknown; descriptor?: unknown; commands?: unknown } };
  try {
    const text = readFileSync(join(directory, "package.json"), "utf8");
    // Most packages are not plugins: only a manifest naming the "outpost" key is worth parsing.
    if (!text.includes('"outpost"')) return undefined;
    manifest = JSON.parse(text) as typeof manifest;
  } catch {
    return undefined;
  }
  const declared = manifest.outpost;
  if (typeof manifest.name !== "string" || typeof declared !== "object" || declared === null) return undefined;
  const kind = PLUGIN_KINDS.find((known) => known === declared.kind);
  if (kind === undefined) return undefined;
  const descriptorPath = typeof declared.descriptor === "string" ? declared.descriptor : ".";
  const name = typeof declared.name === "string" ? declared.name : shortName(manifest.name, kind);
  return { kind, name, packageName: manifest.name, directory, descriptorPath, commands: commandGroups(declared.commands) };
}

/** `{ "<group>": "<description>" }` with lower-case command words; anything else is ignored. */
function commandGroups(declared: unknown): Record<string, string> {
  if (typeof declared !== "object" || declared === null) return {};
  const groups: Record<string, string> = {};
  for (const [group, description] of Object.entries(declared))
    if (/^[a-z][a-z0-9-]*$/.test(group) && typeof description === "string") groups[group] = description;
  return groups;
}

/** `@outpost/agent-<name>` → `<name>`, `outpost-provider-moon` → `moon`. */
function shortName(packageName: string, kind: string): string {
  const bare = packageName.replace(/^@[^/]+\//, "");
  return bare.replace(new RegExp(`^(outpost-)?${kind}-`), "");
}
