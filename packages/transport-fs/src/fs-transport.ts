import { unlink } from "node:fs/promises";
import { resolve } from "node:path";
import {
  assertTransportPrefix,
  OutpostError,
  throwIfAborted,
  type Transport,
  type TransportEntry,
  type TransportObject,
  type TransportReadOptions,
  type TransportRemoveOptions,
  type TransportWriteOptions,
} from "@outpost/core";
import { createExclusively, syncDirectory, writeAtomically } from "./atomic-file.js";
import { withKeyLock } from "./key-lock.js";
import { listObjects } from "./list-objects.js";
import { mapFsError } from "./map-fs-error.js";
import { encodeHeader, newRevision, sha256Hex } from "./object-header.js";
import { currentRevision, openObject, readPayload } from "./object-file.js";
import { ensureDirectories, keyPaths } from "./store-paths.js";

export interface FsTransportConfig {
  /** The store directory; created on the first write. */
  readonly directory: string;
  /** How long a write or remove waits for another writer's lock on the same key. Default 10 s. */
  readonly lockTimeoutMs?: number;
  /** Default `"fs"`. */
  readonly name?: string;
}

/** A `Transport` on a local directory: atomic writes, random revisions, per-key locks across processes. */
export function fsTransport(config: FsTransportConfig): Transport {
  if (typeof config?.directory !== "string" || config.directory.length === 0) {
    throw new OutpostError("configuration", 'fsTransport needs a directory. Pass { directory: "/path/to/store" }.');
  }
  const root = resolve(config.directory);
  const lockTimeoutMs = config.lockTimeoutMs ?? 10_000;

  return {
    specificationVersion: "v1",
    name: config.name ?? "fs",

    async read(key: string, options: TransportReadOptions = {}): Promise<TransportObject | undefined> {
      const paths = keyPaths(root, key);
      if (options.maxBytes !== undefined) assertMaxBytes(options.maxBytes);
      throwIfAborted(options.signal, `Reading ${key}`);
      if (!(await ensureDirectories(root, paths.segments, false))) return undefined;
      const opened = await openObject(paths.object, key);
      if (!opened) return undefined;
      try {
        if (options.maxBytes !== undefined && opened.size > options.maxBytes) {
          throw new OutpostError(
            "limit",
            `${key} is ${opened.size} bytes, over the ${options.maxBytes}-byte limit. Raise maxBytes or read a smaller object.`,
            { details: { key, size: opened.size, maxBytes: options.maxBytes } },
          );
        }
        const bytes = await readPayload(opened, key, paths.object);
        throwIfAborted(options.signal, `Reading ${key}`);
        return { key, revision: opened.header.revision, size: opened.size, modifiedAt: opened.stats.mtime.toISOString(), bytes };
      } catch (error) {
        throw OutpostError.isInstance(error) ? error : mapFsError(error, `Reading ${key}`, { key });
      } finally {
        await opened.handle.close();
      }
    },

    async write(key: string, bytes: Uint8Array, options: TransportWriteOptions): Promise<TransportEntry> {
      const paths = keyPaths(root, key);
      throwIfAborted(options?.signal, `Writing ${key}`);
      assertIfRevision(options?.ifRevision);
      await ensureDirectories(root, paths.segments, true);
      if (options.ifRevision === null) {
        // Create-only needs no lock: link() refuses a taken name atomically, also across processes.
        const revision = newRevision();
        const header = encodeHeader({ revision, sha256: sha256Hex(bytes) });
        const modifiedAt = await createExclusively(paths.directory, paths.name, paths.object, [header, bytes]);
        if (!modifiedAt) throw conflict(key, null, await currentRevision(paths.object, key));
        return { key, revision, size: bytes.byteLength, modifiedAt: modifiedAt.toISOString() };
      }
      return withKeyLock(paths, lockTimeoutMs, options.signal, async () => {
        const current = await currentRevision(paths.object, key);
        if (current !== options.ifRevision) throw conflict(key, options.ifRevision, current);
        throwIfAborted(options.signal, `Writing ${key}`);
        const revision = newRevision();
        const header = encodeHeader({ revision, sha256: sha256Hex(bytes) });
        const modifiedAt = await writeAtomically(paths.directory, paths.name, paths.object, [header, bytes]);
        return { key, revision, size: bytes.byteLength, modifiedAt: modifiedAt.toISOString() };
      });
    },

    async remove(key: string, options: TransportRemoveOptions): Promise<void> {
      const paths = keyPaths(root, key);
      throwIfAborted(options?.signal, `Removing ${key}`);
      if (typeof options?.ifRevision !== "string") {
        throw new OutpostError("configuration", `remove(${key}) needs ifRevision: the revision you read. Read the object first.`, {
          details: { key },
        });
      }
      // Revisions are random, so an object created after this check can never match ifRevision.
      const before = (await ensureDirectories(root, paths.segments, false)) ? await currentRevision(paths.object, key) : null;
      if (before !== options.ifRevision) throw conflict(key, options.ifRevision, before);
      await withKeyLock(paths, lockTimeoutMs, options.signal, async () => {
        const current = await currentRevision(paths.object, key);
        if (current !== options.ifRevision) throw conflict(key, options.ifRevision, current);
        await unlink(paths.object).catch((error: unknown) => {
          throw mapFsError(error, `Removing ${key}`, { key });
        });
        await syncDirectory(paths.directory);
      });
    },

    list(prefix = "", options: { readonly signal?: AbortSignal } = {}): AsyncIterable<TransportEntry> {
      return {
        [Symbol.asyncIterator]: () => {
          assertTransportPrefix(prefix);
          return listObjects(root, prefix, options.signal);
        },
      };
    },
  };
}

function assertIfRevision(ifRevision: unknown): void {
  if (ifRevision !== null && (typeof ifRevision !== "string" || ifRevision.length === 0)) {
    throw new OutpostError(
      "configuration",
      "write needs ifRevision: null to create, or the revision you read to replace. Pass one of them.",
    );
  }
}

function assertMaxBytes(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new OutpostError("configuration", `maxBytes must be a non-negative integer, got ${maxBytes}. Pass a byte count.`, {
      details: { maxBytes },
    });
  }
}

function conflict(key: string, expected: string | null, current: string | null): OutpostError {
  const wanted = expected === null ? "to be absent" : `at revision ${expected}`;
  const found = current === null ? "it does not exist" : `it is at revision ${current}`;
  return new OutpostError(
    "conflict",
    `${key} was expected ${wanted}, but ${found}: another writer got there first. Read it again and retry.`,
    { details: { key, expected, current } },
  );
}
