import { lstat, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { withFileLock } from "../workspace/file-lock.js";
import { currentProcess, liveness, parseIdentity } from "@outpost/plugin-utils";
import { ensureOutpostDirectory, lockPath, outpostDirectory } from "../workspace/outpost-directory.js";

/** Storage admission: reserve `reserveBytes`, refused when usage under `.outpost` + reservations > `maxBytes`. */
export interface StorageQuota {
  readonly reserveBytes: number;
  readonly maxBytes: number;
}

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
  quota: StorageQuota,
  id: string,
  onWait?: (message: string) => void,
): Promise<StorageReservation> {
  if (!(Number.isFinite(quota.reserveBytes) && quota.reserveBytes >= 0 && Number.isFinite(quota.maxBytes) && quota.maxBytes >= 0)) {
    throw new OutpostError(
      "configuration",
      `storageQuota needs non-negative finite reserveBytes and maxBytes, got ${JSON.stringify(quota)}. Fix the values.`,
    );
  }
  await ensureOutpostDirectory(root);
  const directory = join(outpostDirectory(root), "reservations");
  const file = join(directory, `${id}.json`);
  await withFileLock(
    lockPath(root, "storage"),
    async () => {
      await mkdir(directory, { recursive: true });
      const reserved = await activeReservations(directory);
      const used = await usage(outpostDirectory(root), [directory, join(outpostDirectory(root), "locks")]);
      if (used + reserved + quota.reserveBytes > quota.maxBytes) {
        throw new OutpostError(
          "configuration",
          `Storage quota refused: ${used} bytes used under .outpost plus ${reserved} reserved plus ${quota.reserveBytes} requested exceeds maxBytes ${quota.maxBytes}. Remove old worktrees or conversations under ${outpostDirectory(root)}, or raise maxBytes.`,
          { details: { used, reserved, requested: quota.reserveBytes, maxBytes: quota.maxBytes } },
        );
      }
      await writeFile(file, JSON.stringify({ owner: currentProcess(), bytes: quota.reserveBytes }), { mode: 0o600 });
    },
    { onWait },
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

async function activeReservations(directory: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(directory)) {
    const path = join(directory, name);
    const record = await readFile(path, "utf8")
      .then((text) => JSON.parse(text) as { owner?: unknown; bytes?: unknown })
      .catch(() => undefined);
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
    total += record.bytes;
  }
  return total;
}

/** Bytes of regular files under `directory` (links not followed), skipping the bookkeeping directories. */
async function usage(directory: string, skip: readonly string[]): Promise<number> {
  let total = 0;
  const pending = [directory];
  while (pending.length > 0) {
    const current = pending.pop()!;
    if (skip.includes(current)) continue;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile()) total += (await lstat(path).catch(() => undefined))?.size ?? 0;
    }
  }
  return total;
}
