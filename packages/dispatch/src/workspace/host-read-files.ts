import { lstatSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { HOST_READ_PATHS } from "./host-read-paths.js";
import { outpostDirectory } from "./outpost-directory.js";

/**
 * The single files of HOST_READ_PATHS in a checkout (`.env`, `config.json`, `.gitignore`). An agent that runs
 * on the host in the checkout itself can rewrite them; the git boundary snapshots them with the git control
 * files and puts back whatever the turn changed, so nothing it wrote there sets a later dispatch's variables
 * or `outpost run`'s defaults (a provider, an image). The trees are written by the running dispatch itself
 * and checked by their readers (host-owned, no links), not restored.
 */
export function hostReadFiles(root: string): string[] {
  return HOST_READ_PATHS.filter((entry) => entry.kind === "file").map((entry) => join(root, ...entry.path.split("/")));
}

/**
 * Before a file under `<root>/.outpost` is removed or written back: each directory from `.outpost` down to
 * its parent must be a real directory, or the removal and the write would follow a link the agent planted
 * (to delete or write a file elsewhere). A link or file in such a place is removed (never followed) and a
 * directory made instead. Returns the paths replaced.
 */
export async function reclaimOutpostParents(root: string, path: string): Promise<string[]> {
  const replaced: string[] = [];
  for (const directory of outpostParents(root, path)) {
    const found = lstatOrUndefined(directory);
    if (found?.isDirectory()) continue;
    if (found !== undefined) {
      replaced.push(directory);
      await rm(directory, { force: true });
    }
    await mkdir(directory, { mode: 0o755 });
  }
  return replaced;
}

/** Whether each directory from `<root>/.outpost` down to the parent of `path` is a real directory (true outside `.outpost`). */
export function outpostParentsIntact(root: string, path: string): boolean {
  return outpostParents(root, path).every((directory) => lstatOrUndefined(directory)?.isDirectory() !== false);
}

/** `<root>/.outpost` and each directory below it down to the parent of `path`; none when `path` is outside. */
function outpostParents(root: string, path: string): string[] {
  const top = outpostDirectory(root);
  const below = relative(top, join(path, ".."));
  if (below.startsWith("..") || isAbsolute(below)) return [];
  const parents = [top];
  for (const name of below === "" ? [] : below.split(sep)) parents.push(join(parents.at(-1)!, name));
  return parents;
}

function lstatOrUndefined(path: string): ReturnType<typeof lstatSync> | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
