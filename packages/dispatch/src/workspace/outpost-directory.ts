import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { assertHostDirectories } from "./host-written.js";

/** `<root>/.outpost`: managed worktrees, locks, reservations and local storage. */
export function outpostDirectory(root: string): string {
  return join(root, ".outpost");
}

/**
 * Creates `.outpost` with a `.gitignore` of `*`, so nothing under it ever shows up in `git status`. One found
 * there must be a directory only the host user could have written (a link would redirect all of it).
 */
export async function ensureOutpostDirectory(root: string): Promise<string> {
  const directory = outpostDirectory(root);
  await assertHostDirectories(root, directory, { what: "Outpost's folder in the checkout", code: "workspace" });
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, ".gitignore"), "*\n", { flag: "wx" }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== "EEXIST") throw error;
  });
  return directory;
}

/** Lock files serializing work on one checkout. */
export function lockPath(root: string, name: string): string {
  return join(outpostDirectory(root), "locks", `${name}.lock`);
}
