import { createHash } from "node:crypto";
import { open, readFile } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import { pack as createPack, type Pack } from "tar-stream";
import type { HostEntry } from "./host-tree.js";

export interface PackOptions {
  /** Entry name in the archive for a host entry (e.g. with a prefix, or a file's new name). */
  readonly name: (entry: HostEntry) => string;
  readonly uid?: number;
  readonly gid?: number;
  /** Called with each file's SHA-256 as it is packed. */
  readonly hashed?: (entry: HostEntry, sha256: string) => void;
  readonly check?: () => void;
}

// Smaller files are read in one call: per-file streams dominate the cost of a tree of small files.
const WHOLE_FILE_BYTES = 4 * 1024 * 1024;

/** Streams host entries as a tar archive (tar-stream). Call `finished` to learn whether packing failed. */
export function packHostEntries(entries: readonly HostEntry[], options: PackOptions): { archive: Pack; finished: Promise<void> } {
  const archive = createPack();
  // Failures are reported through `finished`; the stream's own error event must not go unhandled.
  archive.on("error", () => undefined);
  const finished = fill(archive, entries, options).then(
    () => void archive.finalize(),
    (error: unknown) => {
      archive.destroy(error as Error);
      throw error;
    },
  );
  finished.catch(() => undefined);
  return { archive, finished };
}

// Small files are read ahead, this many at once, while earlier ones are being packed.
const READ_AHEAD = 64;

async function fill(archive: Pack, entries: readonly HostEntry[], options: PackOptions): Promise<void> {
  const owner = { uid: options.uid ?? 0, gid: options.gid ?? 0 };
  const reads = new Map<HostEntry, Promise<Buffer>>();
  let next = 0;
  const readAhead = (from: number) => {
    for (next = Math.max(next, from); next < entries.length && reads.size < READ_AHEAD; next++) {
      const entry = entries[next]!;
      if (entry.kind !== "file" || entry.size > WHOLE_FILE_BYTES) continue;
      const read = readFile(entry.source);
      read.catch(() => undefined);
      reads.set(entry, read);
    }
  };
  for (const [index, entry] of entries.entries()) {
    options.check?.();
    readAhead(index);
    const header = { ...owner, name: options.name(entry), mode: entry.mode, mtime: entry.mtime };
    if (entry.kind === "directory") {
      await add(archive, { ...header, type: "directory" });
    } else if (entry.kind === "link") {
      await add(archive, { ...header, type: "symlink", linkname: entry.target ?? "" });
    } else {
      const read = reads.get(entry);
      reads.delete(entry);
      if (read === undefined) {
        await addLargeFile(archive, entry, header, options);
      } else {
        const body = await read;
        options.hashed?.(entry, createHash("sha256").update(body).digest("hex"));
        await add(archive, { ...header, type: "file", size: body.length }, body);
      }
    }
  }
}

function add(archive: Pack, header: Parameters<Pack["entry"]>[0], body?: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    archive.entry(header, body ?? Buffer.alloc(0), (error) => (error ? reject(error) : resolve()));
  });
}

async function addLargeFile(archive: Pack, entry: HostEntry, header: Parameters<Pack["entry"]>[0], options: PackOptions): Promise<void> {
  const handle = await open(entry.source, "r");
  try {
    const { size } = await handle.stat();
    const hash = createHash("sha256");
    const sink = archive.entry({ ...header, type: "file", size });
    const source = handle.createReadStream({ autoClose: false, start: 0, end: Math.max(0, size - 1) });
    source.on("data", (chunk) => hash.update(chunk));
    await pipeline(source, sink);
    options.hashed?.(entry, hash.digest("hex"));
  } finally {
    await handle.close();
  }
}
