import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import type { Pack } from "tar-stream";
import { OutpostError } from "@outpost/core";
import type { HostTreeEntry } from "./host-tree.js";
import { tarStream } from "./tar-stream-module.js";

export interface PackOptions {
  /** Entry name in the archive for a host entry (e.g. with a prefix, or a file's new name). */
  readonly name: (entry: HostTreeEntry) => string;
  readonly uid?: number;
  readonly gid?: number;
  /** Called with each file's SHA-256 as it is packed. */
  readonly hashed?: (entry: HostTreeEntry, sha256: string) => void;
  readonly check?: () => void;
}

// Files up to this size are read synchronously in one call: for trees of small files the thread-pool
// round trips of async reads cost more than the reads (measured: 10,000 files, 0.4 s sync vs 3 s async).
const SMALL_FILE_BYTES = 256 * 1024;
// Entries are queued without waiting for each to be written; waiting every so often bounds the memory.
const QUEUE_ENTRIES = 1024;
const QUEUE_BYTES = 16 * 1024 * 1024;

/** Streams host entries as a tar archive (tar-stream). Call `finished` to learn whether packing failed. */
export function packHostEntries(entries: readonly HostTreeEntry[], options: PackOptions): { archive: Pack; finished: Promise<void> } {
  assertNoNewlineInNames(entries);
  const archive = tarStream().pack();
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

async function fill(archive: Pack, entries: readonly HostTreeEntry[], options: PackOptions): Promise<void> {
  const owner = { uid: options.uid ?? 0, gid: options.gid ?? 0 };
  let queued: Promise<void>[] = [];
  let queuedBytes = 0;
  for (const entry of entries) {
    options.check?.();
    const header = { ...owner, name: options.name(entry), mode: entry.mode, mtime: entry.mtime };
    if (entry.kind === "directory") {
      queued.push(add(archive, { ...header, type: "directory" }));
    } else if (entry.kind === "link") {
      queued.push(add(archive, { ...header, type: "symlink", linkname: entry.target ?? "" }));
    } else if (entry.size <= SMALL_FILE_BYTES) {
      const body = readFileSync(entry.source);
      options.hashed?.(entry, createHash("sha256").update(body).digest("hex"));
      queued.push(add(archive, { ...header, type: "file", size: body.length }, body));
      queuedBytes += body.length;
    } else {
      await Promise.all(queued);
      queued = [];
      queuedBytes = 0;
      await addLargeFile(archive, entry, header, options);
    }
    if (queued.length >= QUEUE_ENTRIES || queuedBytes >= QUEUE_BYTES) {
      await Promise.all(queued);
      queued = [];
      queuedBytes = 0;
    }
  }
  await Promise.all(queued);
}

function add(archive: Pack, header: Parameters<Pack["entry"]>[0], body?: Buffer): Promise<void> {
  const written = new Promise<void>((resolve, reject) => {
    archive.entry(header, body ?? Buffer.alloc(0), (error) => (error ? reject(error) : resolve()));
  });
  // Awaited in batches: a failure is seen there, never reported as unhandled before.
  written.catch(() => undefined);
  return written;
}

async function addLargeFile(
  archive: Pack,
  entry: HostTreeEntry,
  header: Parameters<Pack["entry"]>[0],
  options: PackOptions,
): Promise<void> {
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

/** The sandbox side reads paths one a line (directories to create, files to verify): a name with a newline is refused. */
export function assertNoNewlineInNames(entries: readonly HostTreeEntry[]): void {
  for (const { path } of entries) {
    if (path.includes("\n")) {
      throw new OutpostError("workspace", `Refused ${JSON.stringify(path)}: names with a newline cannot be transferred. Rename the file.`, {
        details: { path },
      });
    }
  }
}
