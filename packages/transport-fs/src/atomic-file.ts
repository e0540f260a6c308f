import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { link, open, rename, unlink } from "node:fs/promises";
import { join } from "node:path";
import { errnoOf, mapFsError } from "./map-fs-error.js";
import { TEMP_SUFFIX } from "./store-paths.js";

/**
 * Writes `chunks` to `target` atomically: a temporary file in the same directory, fsync, rename over the
 * target, fsync the directory. Readers see the old file or the new one, never a part. Returns mtime.
 */
export async function writeAtomically(directory: string, name: string, target: string, chunks: readonly Uint8Array[]): Promise<Date> {
  const { temporary, modifiedAt } = await writeTemporary(directory, name, chunks);
  try {
    await rename(temporary, target);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw mapFsError(error, `Writing ${target}`);
  }
  await syncDirectory(directory);
  return modifiedAt;
}

/**
 * Creates `target` only if it does not exist, without any lock: `link` of a complete, fsynced temporary
 * file fails atomically when the name is taken. Resolves `undefined` when it was taken.
 */
export async function createExclusively(
  directory: string,
  name: string,
  target: string,
  chunks: readonly Uint8Array[],
): Promise<Date | undefined> {
  const { temporary, modifiedAt } = await writeTemporary(directory, name, chunks);
  try {
    await link(temporary, target);
  } catch (error) {
    if (errnoOf(error) === "EEXIST") return undefined;
    throw mapFsError(error, `Writing ${target}`);
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  await syncDirectory(directory);
  return modifiedAt;
}

async function writeTemporary(
  directory: string,
  name: string,
  chunks: readonly Uint8Array[],
): Promise<{ temporary: string; modifiedAt: Date }> {
  const temporary = join(directory, `${name}${TEMP_SUFFIX}${randomBytes(8).toString("hex")}`);
  try {
    const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      // writeFile loops until every byte is written, where a single write or writev may stop short.
      await handle.writeFile(Buffer.concat(chunks));
      await handle.sync();
      return { temporary, modifiedAt: (await handle.stat()).mtime };
    } finally {
      await handle.close();
    }
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw mapFsError(error, `Writing a temporary file in ${directory}`);
  }
}

/** Makes a rename, link or unlink in `directory` durable. */
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
