import type { Dirent } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { throwIfAborted, type TransportEntry } from "@outpost/core";
import { openObject } from "./object-file.js";
import { errnoOf, mapFsError } from "./map-fs-error.js";
import { OBJECT_SUFFIX, RESERVED, symlinkRefused } from "./store-paths.js";

/**
 * Walks the store below the prefix's directory and yields every object whose key starts with `prefix`.
 * Temporary, lock and takeover files are skipped; a symlink anywhere is refused.
 */
export async function* listObjects(root: string, prefix: string, signal: AbortSignal | undefined): AsyncGenerator<TransportEntry> {
  const slash = prefix.lastIndexOf("/");
  const base = slash < 0 ? "" : prefix.slice(0, slash + 1);
  yield* walk(root, base, prefix, signal);
}

async function* walk(root: string, directoryKey: string, prefix: string, signal: AbortSignal | undefined): AsyncGenerator<TransportEntry> {
  throwIfAborted(signal, `Listing ${prefix}`);
  const directory = join(root, directoryKey);
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch (error) {
    if (errnoOf(error) === "ENOENT" || errnoOf(error) === "ENOTDIR") return;
    throw mapFsError(error, `Listing ${directory}`);
  }
  entries.sort((left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0));
  for (const entry of entries) {
    if (entry.isSymbolicLink()) throw symlinkRefused(join(directory, entry.name));
    if (entry.isDirectory()) {
      if (entry.name.includes(RESERVED)) continue;
      const childKey = `${directoryKey}${entry.name}/`;
      if (childKey.startsWith(prefix) || prefix.startsWith(childKey)) yield* walk(root, childKey, prefix, signal);
      continue;
    }
    if (!entry.isFile() || !entry.name.endsWith(OBJECT_SUFFIX)) continue;
    const name = entry.name.slice(0, -OBJECT_SUFFIX.length);
    if (name.length === 0 || name.includes(RESERVED)) continue;
    const key = directoryKey + name;
    if (!key.startsWith(prefix)) continue;
    throwIfAborted(signal, `Listing ${prefix}`);
    const opened = await openObject(join(directory, entry.name), key);
    if (!opened) continue; // removed while we were listing
    await opened.handle.close();
    yield { key, revision: opened.header.revision, size: opened.size, modifiedAt: opened.stats.mtime.toISOString() };
  }
}
