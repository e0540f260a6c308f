import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The kinds of plugin a package.json may declare under `"outpost"`. */
export const PLUGIN_KINDS = ["agent", "provider", "queue", "transport"] as const;
export type PluginKind = (typeof PLUGIN_KINDS)[number];

/** A plugin package found on disk; only its package.json was read (cheap enough for `outpost --help`). */
export interface InstalledPlugin {
  readonly kind: PluginKind;
  /** What `--agent` / `--provider` takes: `outpost.name`, else the package name without scope and prefix. */
  readonly name: string;
  readonly packageName: string;
  readonly directory: string;
  /** The export path (`.` or `./descriptor`) whose module exports `descriptor`. */
  readonly descriptorPath: string;
  /** True when found beside the CLI (importable by name); false when found above the working directory. */
  readonly besideCli: boolean;
  /** Command groups the plugin adds (`outpost <group> …`), with the one-line description help shows. */
  readonly commands: Readonly<Record<string, string>>;
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
    for (const directory of packageDirectories(root)) {
      const plugin = readPlugin(directory, besideCli);
      const key = `${plugin?.kind}:${plugin?.name}`;
      if (plugin !== undefined && !found.has(key)) found.set(key, plugin);
    }
  }
  // Code-unit order, not localeCompare: its first call loads ICU collation data, 8 ms of every CLI start.
  const plugins = [...found.values()].sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  scans.set(cwd, plugins);
  return plugins;
}

function nodeModulesAbove(start: string): string[] {
  const roots: string[] = [];
  for (let directory = start; ; directory = dirname(directory)) {
    if (!directory.endsWith("/node_modules")) roots.push(join(directory, "node_modules"));
    if (dirname(directory) === directory) return roots;
  }
}

/** The package folders under `root` whose names a plugin may have (see `mayBePlugin`). */
function packageDirectories(root: string): string[] {
  const entries = safeList(root);
  return entries.flatMap((entry) =>
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
 * Plugin packages are named `@outpost/…`, or `[@scope/]outpost-…`, `[@scope/]agent-…`, `[@scope/]provider-…`, `[@scope/]queue-…`,
 * `[@scope/]transport-…`:
 * only those package.json files are read, so `outpost --help` costs the same beside a thousand dependencies.
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

function readPlugin(directory: string, besideCli: boolean): InstalledPlugin | undefined {
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
  return { kind, name, packageName: manifest.name, directory, descriptorPath, besideCli, commands: commandGroups(declared.commands) };
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
