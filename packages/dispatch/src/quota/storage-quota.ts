import { lstat, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { withFileLock } from "../workspace/file-lock.js";
import { currentProcess, liveness, parseIdentity } from "@outpost/plugin-utils";
import { ensureOutpostDirectory, lockPath, outpostDirectory } from "../workspace/outpost-directory.js";
import { readHostFile } from "../workspace/host-written.js";

/** Storage admission (the reference's StorageReservationOptions): what to reserve and the limits it must fit. */
export interface StorageReservationOptions {
  /** Limit on the bytes used under `.outpost` plus every active reservation. */
  readonly maxBytes: number;
  /** Bytes this dispatch reserves while it runs; default 0 (checks the limit without holding room). */
  readonly reserveBytes?: number;
  /** Limit on the entries (files, directories, links) under `.outpost` plus every active reservation's. */
  readonly maxEntries?: number;
  /** Entries this dispatch reserves while it runs; default 0. */
  readonly reserveEntries?: number;
  /** Stops waiting for the storage lock. */
  readonly signal?: AbortSignal;
}

/** The `storageQuota` option of dispatch(). */
export type StorageQuota = Omit<StorageReservationOptions, "signal">;

export interface StorageReservation {
  readonly bytes: number;
  release(): Promise<void>;
}

/**
 * Admits a dispatch against the repository's storage quota. Reservations are files under
 * `.outpost/reservations` holding the owner's identity (pid, start time, boot), so concurrent processes
 * see each other and a crashed owner's reservation stops counting, even once its pid is reused.
 */
export async function reserveStorage(
  root: string,
  options: StorageReservationOptions,
  id: string,
  onWait?: (message: string) => void,
): Promise<StorageReservation> {
  const quota = checkedQuota(options);
  await ensureOutpostDirectory(root);
  const directory = join(outpostDirectory(root), "reservations");
  const file = join(directory, `${id}.json`);
  await withFileLock(
    lockPath(root, "storage"),
    async () => {
      await mkdir(directory, { recursive: true });
      const reserved = await activeReservations(directory);
      // Bookkeeping is not counted: locks, reservations, and activity records (a dispatch's own is written first).
      const bookkeeping = [directory, join(outpostDirectory(root), "locks"), join(outpostDirectory(root), "storage", "activity")];
      const used = await usage(outpostDirectory(root), bookkeeping);
      if (used.bytes + reserved.bytes + quota.reserveBytes > quota.maxBytes) {
        throw new OutpostError(
          "configuration",
          `Storage quota refused: ${used.bytes} bytes used under .outpost plus ${reserved.bytes} reserved plus ${quota.reserveBytes} requested exceeds maxBytes ${quota.maxBytes}. ` +
            `Remove old worktrees or conversations under ${outpostDirectory(root)}, or raise maxBytes.`,
          { details: { used: used.bytes, reserved: reserved.bytes, requested: quota.reserveBytes, maxBytes: quota.maxBytes } },
        );
      }
      if (quota.maxEntries !== undefined && used.entries + reserved.entries + quota.reserveEntries > quota.maxEntries) {
        throw new OutpostError(
          "configuration",
          `Storage quota refused: ${used.entries} entries under .outpost plus ${reserved.entries} reserved plus ${quota.reserveEntries} requested exceeds maxEntries ${quota.maxEntries}. ` +
            `Remove old worktrees or conversations under ${outpostDirectory(root)}, or raise maxEntries.`,
          {
            details: {
              usedEntries: used.entries,
              reservedEntries: reserved.entries,
              requestedEntries: quota.reserveEntries,
              maxEntries: quota.maxEntries,
            },
          },
        );
      }
      const record = { owner: currentProcess(), bytes: quota.reserveBytes, entries: quota.reserveEntries };
      await writeFile(file, JSON.stringify(record), { mode: 0o600 });
    },
    { onWait, ...(options.signal ? { signal: options.signal } : {}) },
  );
  let released = false;
  return {
    bytes: quota.reserveBytes,
    async release() {
      if (released) return;
      released = true;
      await rm(file, { force: true });
    },
  };
}

async function activeReservations(directory: string): Promise<Measure> {
  const total = { bytes: 0, entries: 0 };
  for (const name of await readdir(directory)) {
    const path = join(directory, name);
    // Another user's reservation is refused, not trusted (nor removed): it could hold the quota up or down.
    const bytes = await readHostFile(path, { what: "a storage reservation", code: "quota" });
    const record = parseJson(bytes) as { owner?: unknown; bytes?: unknown } | undefined;
    // Older reservations hold a pid alone.
    const owner = parseIdentity(
      record?.owner ??
        (typeof (record as { pid?: unknown } | undefined)?.pid === "number"
          ? { pid: (record as { pid: number }).pid, host: currentProcess().host }
          : undefined),
    );
    if (!record || !owner || typeof record.bytes !== "number" || liveness(owner) === "dead") {
      await rm(path, { force: true });
      continue;
    }
    total.bytes += record.bytes;
    total.entries += typeof (record as { entries?: unknown }).entries === "number" ? (record as { entries: number }).entries : 0;
  }
  return total;
}

/** Bytes of regular files and count of entries under `directory` (links not followed), bookkeeping skipped. */
async function usage(directory: string, skip: readonly string[]): Promise<Measure> {
  const total = { bytes: 0, entries: 0 };
  const pending = [directory];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (skip.includes(current)) continue;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (skip.includes(path)) continue;
      total.entries += 1;
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) total.bytes += (await lstat(path).catch(() => undefined))?.size ?? 0;
    }
  }
  return total;
}

interface Measure {
  bytes: number;
  entries: number;
}

type CheckedQuota = {
  readonly maxBytes: number;
  readonly reserveBytes: number;
  readonly maxEntries?: number;
  readonly reserveEntries: number;
};

function checkedQuota(options: StorageReservationOptions): CheckedQuota {
  const quota = { ...options, reserveBytes: options.reserveBytes ?? 0, reserveEntries: options.reserveEntries ?? 0 };
  for (const name of ["maxBytes", "reserveBytes", "maxEntries", "reserveEntries"] as const) {
    const value = quota[name];
    if (value === undefined && name === "maxEntries") continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      throw new OutpostError(
        "configuration",
        `storageQuota.${name} must be a non-negative finite number, got ${JSON.stringify(value)}. Fix the value${name === "maxBytes" ? " (maxBytes is required)" : ""}.`,
      );
  }
  return quota;
}

function parseJson(bytes: Buffer | undefined): unknown {
  try {
    return bytes === undefined ? undefined : JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}
