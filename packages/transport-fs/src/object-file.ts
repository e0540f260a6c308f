import { constants, type Stats } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import { decodeHeader, HEADER_BYTES, sha256Hex, type ObjectHeader } from "./object-header.js";
import { errnoOf, mapFsError } from "./map-fs-error.js";
import { symlinkRefused } from "./store-paths.js";

export interface OpenedObject {
  readonly handle: FileHandle;
  readonly header: ObjectHeader;
  readonly stats: Stats;
  readonly size: number;
}

/**
 * Opens an object file without following a symlink and reads its header. Resolves `undefined` when the
 * object does not exist. The caller closes the handle.
 */
export async function openObject(path: string, key: string): Promise<OpenedObject | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const errno = errnoOf(error);
    if (errno === "ENOENT" || errno === "ENOTDIR") return undefined;
    if (errno === "ELOOP") throw symlinkRefused(path);
    throw mapFsError(error, `Opening ${key}`, { key });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw corrupt(key, path, "it is not a regular file");
    const head = Buffer.alloc(HEADER_BYTES);
    const { bytesRead } = await handle.read(head, 0, HEADER_BYTES, 0);
    const header = decodeHeader(head.subarray(0, bytesRead));
    if (!header) throw corrupt(key, path, "its header is missing or damaged");
    return { handle, header, stats, size: stats.size - HEADER_BYTES };
  } catch (error) {
    await handle.close();
    throw OutpostError.isInstance(error) ? error : mapFsError(error, `Reading ${key}`, { key });
  }
}

/** Reads the payload after the header and checks it against the header's SHA-256. */
export async function readPayload(opened: OpenedObject, key: string, path: string): Promise<Uint8Array> {
  const bytes = Buffer.alloc(opened.size);
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesRead } = await opened.handle.read(bytes, offset, bytes.length - offset, HEADER_BYTES + offset);
    if (bytesRead === 0) throw corrupt(key, path, "it is shorter than when it was opened");
    offset += bytesRead;
  }
  if (sha256Hex(bytes) !== opened.header.sha256) throw corrupt(key, path, "its bytes do not match the SHA-256 in its header");
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The revision stored for a key, or `null` when there is no object. */
export async function currentRevision(path: string, key: string): Promise<string | null> {
  const opened = await openObject(path, key);
  if (!opened) return null;
  await opened.handle.close();
  return opened.header.revision;
}

function corrupt(key: string, path: string, why: string): OutpostError {
  return new OutpostError(
    "transport",
    `The stored object ${key} is corrupt: ${why} (${path}). Restore it from another copy or remove the file.`,
    { details: { key, path } },
  );
}
