import { randomBytes } from "node:crypto";
import { link, lstat, mkdir, open, readdir, readFile, rename, unlink, type FileHandle } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import {
  assertTransportKey,
  assertTransportPrefix,
  OutpostError,
  throwIfAborted,
  type Transport,
  type TransportEntry,
  type TransportObject,
} from "@outpost/core";
import { ensureOutpostDirectory, outpostDirectory } from "../workspace/outpost-directory.js";
import { assertHostWritten } from "../workspace/host-written.js";

/**
 * The default journal transport: files under `<root>/.outpost/storage`. The revision of an object names its
 * file (inode and modification time): every write renames or links a new file in. Create-only writes are
 * atomic (`link` of a complete file fails when the name is taken); a compare-and-swap write checks the
 * current revision, then renames a complete file over it, serialized per key within this process, which is
 * enough for the one writer a journal has. Use @outpost/transport-fs where many hosts share a store.
 */
export function localJournalTransport(root: string): Transport {
  const base = join(outpostDirectory(root), "storage", "objects");
  // Objects end in `.o` and folders in `.d`, so a key that is also the prefix of other keys ("a", "a/b") keeps both.
  const pathOf = (key: string): string => {
    const segments = assertTransportKey(key).split("/");
    return join(base, ...segments.slice(0, -1).map((segment) => `${segment}.d`), `${segments[segments.length - 1]}.o`);
  };
  const keyOf = (file: string): string | undefined => {
    const segments = relative(base, file).split(sep);
    const last = segments.pop();
    if (!last?.endsWith(".o") || !segments.every((segment) => segment.endsWith(".d"))) return undefined;
    return [...segments.map((segment) => segment.slice(0, -2)), last.slice(0, -2)].join("/");
  };
  // Folders this transport made: a journal writes a dozen objects into the same two, so each is made once
  // (and again only if it disappeared meanwhile).
  const made = new Set<string>();
  const openInside = async (folder: string, file: string): Promise<FileHandle> => {
    if (!made.has(folder)) {
      await ensureOutpostDirectory(root);
      await mkdir(folder, { recursive: true, mode: 0o700 });
      made.add(folder);
    }
    return open(file, "wx", 0o600).catch((error: NodeJS.ErrnoException): Promise<FileHandle> => {
      if (error.code !== "ENOENT" || !made.delete(folder)) throw error;
      return openInside(folder, file);
    });
  };
  const locks = new Map<string, Promise<unknown>>();
  // Compare-and-swap and removal of one key never interleave within this process.
  const exclusive = <T>(key: string, work: () => Promise<T>): Promise<T> => {
    const previous = locks.get(key) ?? Promise.resolve();
    const next = previous.then(work, work);
    const settled = next.catch(() => undefined);
    locks.set(key, settled);
    void settled.then(() => {
      if (locks.get(key) === settled) locks.delete(key);
    });
    return next;
  };
  const entryOf = async (key: string, path: string): Promise<TransportEntry | undefined> => {
    const info = await lstat(path, { bigint: true }).catch(() => undefined);
    // A journal object another user could have written (or a link) is refused: replay re-emits what it holds.
    if (info) assertHostWritten(path, info, { what: "a journal object", code: "transport" });
    if (!info?.isFile()) return undefined;
    return {
      key,
      revision: `${info.ino}-${info.mtimeNs}`,
      size: Number(info.size),
      modifiedAt: new Date(Number(info.mtimeMs)).toISOString(),
    };
  };
  const readObject = async (key: string, maxBytes?: number): Promise<TransportObject | undefined> => {
    const path = pathOf(key);
    const info = await entryOf(key, path);
    if (!info) return undefined;
    if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes >= 0))
      throw new OutpostError("configuration", `maxBytes must be a non-negative integer, got ${maxBytes}. Pass a byte count.`, {
        details: { key, maxBytes },
      });
    if (maxBytes !== undefined && info.size > maxBytes)
      throw new OutpostError("limit", `${key} is ${info.size} bytes, over the ${maxBytes}-byte limit of this read.`, {
        details: { key, size: info.size, maxBytes },
      });
    const bytes = new Uint8Array(await readFile(path).catch(() => new Uint8Array()));
    // Replaced while being read: the revision read first would not describe these bytes.
    const after = await entryOf(key, path);
    if (after?.revision !== info.revision) return readObject(key, maxBytes);
    return { ...info, bytes };
  };
  return {
    specificationVersion: "v1",
    name: "local",
    async read(key, options) {
      throwIfAborted(options?.signal, "Reading the journal");
      return readObject(key, options?.maxBytes);
    },
    async write(key, bytes, options) {
      throwIfAborted(options.signal, "Writing the journal");
      const path = pathOf(key);
      const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
      const handle = await openInside(dirname(path), temporary);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      try {
        if (options.ifRevision === null) {
          await link(temporary, path).catch((error: NodeJS.ErrnoException) => {
            throw error.code === "EEXIST" ? conflict(key) : error;
          });
        } else {
          const expected = options.ifRevision;
          await exclusive(key, async () => {
            if ((await entryOf(key, path))?.revision !== expected) throw conflict(key);
            await rename(temporary, path);
          });
        }
      } finally {
        await unlink(temporary).catch(() => undefined);
      }
      const written = await entryOf(key, path);
      if (!written) throw conflict(key);
      return written;
    },
    async remove(key, options) {
      throwIfAborted(options.signal, "Removing from the journal");
      const path = pathOf(key);
      await exclusive(key, async () => {
        const current = await entryOf(key, path);
        if (current?.revision !== options.ifRevision) throw conflict(key);
        await unlink(path).catch(() => undefined);
      });
    },
    async *list(prefix = "", options) {
      assertTransportPrefix(prefix);
      for (const file of (await walk(base)).sort()) {
        throwIfAborted(options?.signal, "Listing the journal");
        const key = keyOf(file);
        if (key === undefined || !key.startsWith(prefix)) continue;
        const entry = await entryOf(key, file);
        if (entry) yield entry;
      }
    },
  };
}

function conflict(key: string): OutpostError {
  return new OutpostError("conflict", `${key} was written by someone else meanwhile. Read it again before writing.`, { details: { key } });
}

async function walk(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true }).catch(() => []);
  const files: string[] = [];
  for (const entry of entries) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) files.push(...(await walk(path)));
    else if (entry.isFile()) files.push(path);
  }
  return files;
}
