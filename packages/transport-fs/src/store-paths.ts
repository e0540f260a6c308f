import { lstat, mkdir } from "node:fs/promises";
import { join } from "node:path";
import { assertTransportKey, OutpostError } from "@outpost/core";
import { errnoOf, mapFsError } from "./map-fs-error.js";

// Store files carry a suffix no key may contain, so an object "a" and objects under "a/" can coexist
// and locks or temporary files can never be mistaken for objects.
export const RESERVED = "~outpost";
export const OBJECT_SUFFIX = RESERVED;
export const LOCK_SUFFIX = `${RESERVED}-lock`;
export const TAKEOVER_SUFFIX = `${RESERVED}-takeover`;
export const TEMP_SUFFIX = `${RESERVED}-tmp-`;

export interface KeyPaths {
  readonly key: string;
  readonly directory: string;
  /** Directory segments from the store root to the object's directory. */
  readonly segments: readonly string[];
  readonly object: string;
  readonly lock: string;
  readonly takeover: string;
  readonly name: string;
}

/** Validates `key` (code `configuration`) and maps it to the files that hold it. */
export function keyPaths(root: string, key: string): KeyPaths {
  assertTransportKey(key);
  const segments = key.split("/");
  if (segments.some((segment) => segment.includes(RESERVED))) {
    throw new OutpostError(
      "configuration",
      `Invalid transport key ${JSON.stringify(key)}: "${RESERVED}" is reserved for the store's own files. Choose another key.`,
      { details: { key } },
    );
  }
  const name = segments.pop() as string;
  const directory = join(root, ...segments);
  return {
    key,
    directory,
    segments,
    name,
    object: join(directory, name + OBJECT_SUFFIX),
    lock: join(directory, name + LOCK_SUFFIX),
    takeover: join(directory, name + TAKEOVER_SUFFIX),
  };
}

/**
 * Checks that each directory between the root and the key is a real directory, never a symlink,
 * creating missing ones when `create` is set. Resolves false when one is missing and not created.
 */
export async function ensureDirectories(root: string, segments: readonly string[], create: boolean): Promise<boolean> {
  let current = root;
  if (create)
    await mkdir(root, { recursive: true }).catch((error: unknown) => {
      throw mapFsError(error, `Creating the store directory ${root}`);
    });
  for (const segment of segments) {
    current = join(current, segment);
    if (create) {
      await mkdir(current).catch((error: unknown) => {
        if (errnoOf(error) !== "EEXIST") throw mapFsError(error, `Creating ${current}`);
      });
    }
    const stats = await lstat(current).catch((error: unknown) => {
      if (errnoOf(error) === "ENOENT" || errnoOf(error) === "ENOTDIR") return undefined;
      throw mapFsError(error, `Inspecting ${current}`);
    });
    if (!stats) return false;
    if (stats.isSymbolicLink()) throw symlinkRefused(current);
    if (!stats.isDirectory()) {
      throw new OutpostError(
        "transport",
        `${current} is in the way: the store expected a directory there. Move that file out of the store directory.`,
        { details: { path: current } },
      );
    }
  }
  return true;
}

export function symlinkRefused(path: string): OutpostError {
  return new OutpostError(
    "transport",
    `Refusing the symlink ${path} inside the store directory: a link could lead outside it. Remove the link.`,
    { details: { path } },
  );
}
