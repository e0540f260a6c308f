import { chmod, lstat, mkdir, mkdtemp, rename, rm, utimes } from "node:fs/promises";
import { dirname, join } from "node:path";
import { assertNoLinkLeavesDestination } from "./destination-links.js";
import type { StagedEntry } from "./tar-unpack.js";

/** A fresh staging directory beside `destination`, so committing is a rename on the same file system. */
export async function createStaging(destination: string): Promise<string> {
  const parent = dirname(destination);
  await mkdir(parent, { recursive: true });
  return mkdtemp(join(parent, ".outpost-staging-"));
}

/**
 * Moves staged entries into the host `destination` directory. Refuses, before moving anything, a
 * destination where an existing link on the way would carry a write outside it.
 */
export async function commitStagedDirectory(staging: string, entries: readonly StagedEntry[], destination: string): Promise<void> {
  await mkdir(destination, { recursive: true });
  const directories = new Set(entries.filter((entry) => entry.kind === "directory").map((entry) => entry.path));
  await assertNoLinkLeavesDestination(
    destination,
    entries.map((entry) => entry.path),
    directories,
  );
  const ordered = [...entries].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
  for (const entry of ordered) {
    const target = join(destination, entry.path);
    if (entry.kind === "directory") {
      const info = await lstat(target).catch(() => undefined);
      if (info !== undefined && !info.isDirectory()) await rm(target, { force: true });
      await mkdir(target, { recursive: true });
    } else {
      await mkdir(dirname(target), { recursive: true });
      await replaceWith(join(staging, entry.path), target);
    }
  }
  // Modes after contents, deepest first, so a read-only directory still received its children.
  for (const entry of ordered.reverse()) {
    if (entry.kind === "link") continue;
    const target = join(destination, entry.path);
    await chmod(target, entry.mode);
    if (entry.mtime !== undefined) await utimes(target, entry.mtime, entry.mtime);
  }
}

/** Moves a single staged file (or link) to `destination`, replacing what is there (a link is replaced, not followed). */
export async function commitStagedFile(staged: string, entry: StagedEntry, destination: string): Promise<void> {
  await replaceWith(staged, destination);
  if (entry.kind === "link") return;
  await chmod(destination, entry.mode);
  if (entry.mtime !== undefined) await utimes(destination, entry.mtime, entry.mtime);
}

async function replaceWith(staged: string, target: string): Promise<void> {
  const info = await lstat(target).catch(() => undefined);
  if (info?.isDirectory()) await rm(target, { recursive: true, force: true });
  await rename(staged, target);
}
