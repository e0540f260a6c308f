import { lstat } from "node:fs/promises";
import { dirname, sep } from "node:path";
import { assertHostOwned, assertHostOwnedDirectories, notHostOwned, readHostOwnedFile } from "@outpost/core";

/**
 * Rule: what a store reads back from a captured conversation on the host (under `.outpost/conversations`)
 * must be the host user's own writing: core's check (not a link, a regular file, owned by that user or root,
 * writable by no other user or foreign group), on it and on every folder from the `.outpost` that holds it.
 * A sandbox that could write there would otherwise choose what the next sandbox is given. Code `session`.
 */
const CODE = "session";

/** The `.outpost` folder holding `path` (the last one), else the folder of `path` itself. */
function outpostTop(path: string): string {
  const marker = `${sep}.outpost${sep}`;
  const at = path.lastIndexOf(marker);
  return at === -1 ? dirname(path) : path.slice(0, at + marker.length - 1);
}

/** Reads a captured file after the check (undefined when absent). */
export async function readCapturedFile(path: string, what: string): Promise<Buffer | undefined> {
  await assertHostOwnedDirectories(outpostTop(path), dirname(path), { what, code: CODE });
  return readHostOwnedFile(path, { what, code: CODE });
}

/**
 * Checks a captured file before something else reads it (a copy, a relocation): absent is left to the
 * reader's own error; a link, a special file or a foreign writer is refused.
 */
export async function assertCapturedFile(path: string, what: string): Promise<void> {
  await assertHostOwnedDirectories(outpostTop(path), dirname(path), { what, code: CODE });
  const stats = await lstat(path).catch(() => undefined);
  if (stats === undefined) return;
  assertHostOwned(path, stats, { what, code: CODE });
  if (!stats.isFile() && !stats.isDirectory()) throw notHostOwned(path, "it is not a regular file", { what, code: CODE });
}
