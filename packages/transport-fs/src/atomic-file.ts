import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errnoOf, mapFsError } from "./map-fs-error.js";
import { TEMP_SUFFIX } from "./store-paths.js";

/**
 * Writes `chunks` to `target` atomically: a temporary file in the same directory, fsync, rename over the
 * target, fsync the directory. Readers see the old file or the new one, never a part. Returns mtime.
 */
export async function writeAtomically(directory: string, name: string, target: string, chunks: readonly Uint8Array[]): Promise<Date> {
  const temporary = join(directory, `${name}${TEMP_SUFFIX}${randomBytes(8).toString("hex")}`);
  let modifiedAt: Date;
  try {
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      // writeFile loops until every byte is written, where a single write or writev may stop short.
      await handle.writeFile(Buffer.concat(chunks));
      await handle.sync();
      modifiedAt = (await handle.stat()).mtime;
    } finally {
      await handle.close();
    }
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw mapFsError(error, `Writing ${target}`);
  }
  await syncDirectory(directory);
  return modifiedAt;
}

/** Makes a rename or unlink in `directory` durable. */
export async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    // Some file systems refuse fsync on a directory; the rename itself is still atomic there.
    if (errnoOf(error) !== "EINVAL" && errnoOf(error) !== "EPERM") throw mapFsError(error, `Syncing ${directory}`);
  }
}
