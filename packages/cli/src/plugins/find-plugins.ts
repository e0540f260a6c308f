import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A plugin package found on disk; only its package.json was read (cheap enough for `outpost --help`). */
export interface InstalledPlugin {
  readonly kind: "agent" | "provider";
  /** What `--agent` / `--provider` takes: `outpost.name`, else the package name without scope and prefix. */
  readonly name: string;
  readonly packageName: string;
  readonly directory: string;
  /** The export path (`.` or `./descriptor`) whose module exports `descriptor`. */
  readonly descriptorPath: string;
  /** True when found beside the CLI (importable by name); false when found above the working directory. */
  readonly besideCli: boolean;
}

/**
 * Plugins installed beside the CLI, then in the node_modules folders above `cwd`: every package whose
 * package.json declares `"outpost": { "kind": "agent" | "provider", "descriptor": "<export path>" }`.
 * The first package of a name wins. The folders are read once per process and working directory (a
 * repository's node_modules holds hundreds of packages, and help, run and doctor each ask more than once).
 */
export function findPlugins(kind: "agent" | "provider", cwd = process.cwd()): InstalledPlugin[] {
  return installedPlugins(cwd).filter((plugin) => plugin.kind === kind);
}

const scans = new Map<string, readonly InstalledPlugin[]>();

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
  const plugins = [...found.values()].sort((left, right) => left.name.localeCompare(right.name));
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
 * Plugin packages are named `@outpost/…`, or `[@scope/]outpost-…`, `[@scope/]agent-…`, `[@scope/]provider-…`:
 * only those package.json files are read, so `outpost --help` costs the same beside a thousand dependencies.
 */
function mayBePlugin(scope: string | undefined, name: string): boolean {
  return scope === "@outpost" || /^(outpost-|agent-|provider-)/.test(name);
}

function safeList(directory: string): string[] {
  try {
    return readdirSync(directory);
  } catch {
    return [];
  }
}

function readPlugin(directory: string, besideCli: boolean): InstalledPlugin | undefined {
  let manifest: { name?: unknown; outpost?: { kind?: unknown; name?: unknown; descriptor?: unknown } };
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
  if (declared.kind !== "agent" && declared.kind !== "provider") return undefined;
  const descriptorPath = typeof declared.descriptor === "string" ? declared.descriptor : ".";
  const name = typeof declared.name === "string" ? declared.name : shortName(manifest.name, declared.kind);
  return { kind: declared.kind, name, packageName: manifest.name, directory, descriptorPath, besideCli };
}

/** `@outpost/agent-claude` → `claude`, `outpost-provider-moon` → `moon`. */
function shortName(packageName: string, kind: string): string {
  const bare = packageName.replace(/^@[^/]+\//, "");
  return bare.replace(new RegExp(`^(outpost-)?${kind}-`), "");
}
