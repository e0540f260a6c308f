import { lstat, readdir } from "node:fs/promises";

/**
 * True only for a real, empty directory: a remote lease whose worktree is empty (the engine seeds the
 * repository later, as a bundle) can skip uploading it. A link, even to an empty directory, is never
 * "empty", so it still goes through the upload, which refuses it.
 */
export async function isPlainEmptyDirectory(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  if (!info?.isDirectory()) return false;
  return (await readdir(path)).length === 0;
}
