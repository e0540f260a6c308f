import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/**
 * The checkout root whose `.outpost/storage` holds the journals, from what `--from` names: a checkout (git or a
 * plain copy), its `.outpost` folder, or that folder's `storage`. Undefined when none of them holds a storage.
 */
export function journalRoot(from: string): string | undefined {
  const path = resolve(from);
  if (existsSync(join(path, ".outpost", "storage", "objects"))) return path;
  if (basename(path) === ".outpost" && existsSync(join(path, "storage", "objects"))) return dirname(path);
  if (basename(path) === "storage" && basename(dirname(path)) === ".outpost" && existsSync(join(path, "objects")))
    return dirname(dirname(path));
  return undefined;
}
