import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, utimesSync } from "node:fs";
import { mkdir, mkdtemp } from "node:fs/promises";
import { dirname, join } from "node:path";
import { assertNoLinkLeavesDestination } from "./destination-links.js";
import type { StagedEntry } from "./tar-unpack.js";

/** Entries moved between two turns of the event loop: the moves are synchronous (see `commitStagedDirectory`). */
const MOVES_PER_TURN = 512;

/** A fresh staging directory beside `destination`, so committing is a rename on the same file system. */
export async function createStaging(destination: string): Promise<string> {
  const parent = dirname(destination);
  await mkdir(parent, { recursive: true });
  return mkdtemp(join(parent, ".outpost-staging-"));
}

/**
 * Moves staged entries into the host `destination` directory. Refuses, before moving anything, a
 * destination where an existing link on the way would carry a write outside it. Files and links carry
 * their mode and time from staging (`unpackToStaging`), so each is one rename; directories are made, and
 * get their modes after their contents. The calls are synchronous (a thread-pool round trip per small
 * file cost more than the move), in slices so a long commit still lets timers and aborts run.
 */
export async function commitStagedDirectory(staging: string, entries: readonly StagedEntry[], destination: string): Promise<void> {
  await mkdir(destination, { recursive: true });
  const directories = new Set(entries.filter((entry) => entry.kind === "directory").map((entry) => entry.path));
  await assertNoLinkLeavesDestination(
    destination,
    entries.map((entry) => entry.path),
    directories,
  );
  const ordered = [...entries].sort(byPath);
  const made = new Set<string>();
  for (const [index, entry] of ordered.entries()) {
    if (index > 0 && index % MOVES_PER_TURN === 0) await new Promise((resolve) => setImmediate(resolve));
    const target = join(destination, entry.path);
    if (entry.kind === "directory") {
      const info = lstatSync(target, { throwIfNoEntry: false });
      if (info !== undefined && !info.isDirectory()) rmSync(target, { force: true });
      mkdirSync(target, { recursive: true });
      made.add(target);
    } else {
      const parent = dirname(target);
      if (!made.has(parent)) {
        mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      replaceWith(join(staging, entry.path), target);
    }
  }
  applyDirectoryModes(destination, ordered);
}

/**
 * Makes the staging directory the new `destination` when nothing is there yet: one rename instead of one
 * per entry (a download of 10,000 files moved them one by one). `entries` must be everything staged. When
 * something is at `destination`, or appears there meanwhile, the entries move one by one.
 */
export async function commitStagingAsDirectory(staging: string, entries: readonly StagedEntry[], destination: string): Promise<void> {
  if (lstatSync(destination, { throwIfNoEntry: false }) !== undefined) return commitStagedDirectory(staging, entries, destination);
  try {
    renameSync(staging, destination);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    return commitStagedDirectory(staging, entries, destination);
  }
  // Staging was private (0700); the top gets the mode a new directory gets, as mkdir gives it above.
  chmodSync(destination, 0o777 & ~process.umask());
  applyDirectoryModes(destination, [...entries].sort(byPath));
}

/** A parent before its children (its path is a prefix of theirs). */
function byPath(left: StagedEntry, right: StagedEntry): number {
  return left.path < right.path ? -1 : left.path > right.path ? 1 : 0;
}

/** Directory modes and times after their contents, deepest first, so a read-only directory still received its children. */
function applyDirectoryModes(destination: string, ordered: readonly StagedEntry[]): void {
  for (let index = ordered.length - 1; index >= 0; index--) {
    const entry = ordered[index]!;
    if (entry.kind !== "directory") continue;
    const target = join(destination, entry.path);
    chmodSync(target, entry.mode);
    if (entry.mtime !== undefined) utimesSync(target, entry.mtime, entry.mtime);
  }
}

/**
 * Moves a single staged file (or link) to `destination`, replacing what is there (a link is replaced, not
 * followed). Its mode and time came with it from staging. The caller checked the parents on the way.
 */
export function commitStagedFile(staged: string, destination: string): void {
  replaceWith(staged, destination);
}

/** rename() replaces a file or a link itself (never what it points to); a directory in the way is removed first. */
function replaceWith(staged: string, target: string): void {
  try {
    renameSync(staged, target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EISDIR" && code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    rmSync(target, { recursive: true, force: true });
    renameSync(staged, target);
  }
}
