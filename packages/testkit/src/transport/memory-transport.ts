import { randomUUID } from "node:crypto";
import {
  assertTransportKey,
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

/**
 * A reference `Transport` held in memory, for tests of code that consumes a transport.
 * Single-process only; it passes the whole transport suite.
 */
export function memoryTransport(name = "memory"): Transport {
  const objects = new Map<string, TransportObject>();

  return {
    specificationVersion: "v1",
    name,
    async read(key: string, options: TransportReadOptions = {}) {
      assertTransportKey(key);
      throwIfAborted(options.signal, `Reading ${key}`);
      if (options.maxBytes !== undefined) assertMaxBytes(options.maxBytes);
      const stored = objects.get(key);
      if (stored && options.maxBytes !== undefined) {
        if (stored.size > options.maxBytes) {
          throw new OutpostError(
            "limit",
            `${key} is ${stored.size} bytes, over the ${options.maxBytes}-byte limit. Raise maxBytes or read a smaller object.`,
            { details: { key, size: stored.size, maxBytes: options.maxBytes } },
          );
        }
      }
      return stored && { ...stored, bytes: stored.bytes.slice() };
    },
    async write(key: string, bytes: Uint8Array, options: TransportWriteOptions) {
      assertTransportKey(key);
      throwIfAborted(options.signal, `Writing ${key}`);
      const current = objects.get(key)?.revision ?? null;
      if (current !== options.ifRevision) throw conflict(key, options.ifRevision);
      const entry: TransportEntry = { key, revision: randomUUID(), size: bytes.byteLength, modifiedAt: new Date().toISOString() };
      objects.set(key, { ...entry, bytes: bytes.slice() });
      return entry;
    },
    async remove(key: string, options: TransportRemoveOptions) {
      assertTransportKey(key);
      throwIfAborted(options.signal, `Removing ${key}`);
      if (objects.get(key)?.revision !== options.ifRevision) throw conflict(key, options.ifRevision);
      objects.delete(key);
    },
    async *list(prefix = "", options: { readonly signal?: AbortSignal } = {}) {
      assertTransportPrefix(prefix);
      throwIfAborted(options.signal, `Listing ${prefix}`);
      const keys = [...objects.keys()].filter((key) => key.startsWith(prefix)).sort();
      for (const key of keys) {
        const stored = objects.get(key);
        if (stored) yield { key, revision: stored.revision, size: stored.size, modifiedAt: stored.modifiedAt };
      }
    },
  };
}

function assertMaxBytes(maxBytes: number): void {
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new OutpostError("configuration", `maxBytes must be a non-negative integer, got ${maxBytes}. Pass a byte count.`);
  }
}

function conflict(key: string, expected: string | null): OutpostError {
  const wanted = expected === null ? "to be absent" : `at revision ${expected}`;
  return new OutpostError("conflict", `${key} was expected ${wanted} but another writer changed it. Read it again and retry.`, {
    details: { key, expected },
  });
}
