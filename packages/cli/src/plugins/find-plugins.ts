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
 * The first package of a name wins.
 */
export function findPlugins(kind: "agent" | "provider", cwd = process.cwd()): InstalledPlugin[] {
  const found = new Map<string, InstalledPlugin>();
  const cliRoots = nodeModulesAbove(realpathSync(dirname(fileURLToPath(import.meta.url))));
  const roots = [
    ...cliRoots.map((root) => ({ root, besideCli: true })),
    ...nodeModulesAbove(cwd).map((root) => ({ root, besideCli: false })),
  ];
  for (const { root, besideCli } of roots) {
    for (const directory of packageDirectories(root)) {
      const plugin = readPlugin(directory, besideCli);
      if (plugin?.kind === kind && !found.has(plugin.name)) found.set(plugin.name, plugin);
    }
  }
  return [...found.values()].sort((left, right) => left.name.localeCompare(right.name));
}

function nodeModulesAbove(start: string): string[] {
  const roots: string[] = [];
  for (let directory = start; ; directory = dirname(directory)) {
    if (!directory.endsWith("/node_modules")) roots.push(join(directory, "node_modules"));
    if (dirname(directory) === directory) return roots;
  }
}

function packageDirectories(root: string): string[] {
  const entries = safeList(root);
  return entries.flatMap((entry) =>
    entry.startsWith("@")
      ? safeList(join(root, entry)).map((name) => join(root, entry, name))
      : entry.startsWith(".")
        ? []
        : [join(root, entry)],
  );
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
    manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as typeof manifest;
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
