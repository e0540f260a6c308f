import { randomBytes } from "node:crypto";
import { open, readFile, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { OutpostError, throwIfAborted } from "@outpost/core";
import { isProcessRunning } from "@outpost/plugin-utils";
import { errnoOf, mapFsError } from "./map-fs-error.js";

/** A lock file with no readable owner older than this was left by a writer that died mid-creation. */
const UNREADABLE_STALE_MS = 10_000;
const HOST = hostname();

export interface LockPaths {
  readonly key: string;
  readonly lock: string;
  readonly takeover: string;
}

interface LockOwner {
  readonly host: string;
  readonly pid: number;
  readonly token: string;
}

// Within one process, callers queue per lock file, so only one of them polls the file system.
const queues = new Map<string, Promise<void>>();

/**
 * Runs `body` while holding the key's lock: an exclusive lock file (`open` with `wx`) that works across
 * processes. A lock whose owner process on this host is gone is taken over; a live one is waited for.
 */
export async function withKeyLock<T>(
  paths: LockPaths,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  body: () => Promise<T>,
): Promise<T> {
  const previous = queues.get(paths.lock) ?? Promise.resolve();
  let release!: () => void;
  const turn = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => turn);
  queues.set(paths.lock, tail);
  try {
    await previous;
    await acquire(paths, timeoutMs, signal);
    try {
      return await body();
    } finally {
      await releaseLock(paths.lock);
    }
  } finally {
    release();
    if (queues.get(paths.lock) === tail) queues.delete(paths.lock);
  }
}

async function acquire(paths: LockPaths, timeoutMs: number, signal: AbortSignal | undefined): Promise<string> {
  const token = randomBytes(16).toString("hex");
  const owner: LockOwner = { host: HOST, pid: process.pid, token };
  const deadline = Date.now() + timeoutMs;
  let pause = 1;
  for (;;) {
    throwIfAborted(signal, `Locking ${paths.key}`);
    if (await tryCreate(paths.lock, JSON.stringify(owner))) return token;
    if (await isStale(paths.lock)) {
      await takeOver(paths);
      continue;
    }
    if (Date.now() >= deadline) {
      throw new OutpostError(
        "timeout",
        `${paths.key} stayed locked for ${timeoutMs} ms by another writer (${paths.lock}). Retry later; if no writer is running, delete that lock file.`,
        { details: { key: paths.key, lock: paths.lock } },
      );
    }
    await sleep(pause + Math.random() * pause);
    pause = Math.min(pause * 2, 25);
  }
}

async function tryCreate(path: string, content: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx", 0o600);
  } catch (error) {
    if (errnoOf(error) === "EEXIST") return false;
    throw mapFsError(error, `Creating the lock ${path}`);
  }
  try {
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
  return true;
}

async function isStale(path: string): Promise<boolean> {
  const owner = await readOwner(path);
  if (owner === "missing") return false;
  if (owner === undefined) {
    const stats = await stat(path).catch(() => undefined);
    return stats !== undefined && Date.now() - stats.mtimeMs > UNREADABLE_STALE_MS;
  }
  // Only a lock from this host can be checked: a lock from another host is waited for, never broken.
  return owner.host === HOST && !isProcessRunning(owner.pid);
}

/**
 * Removes a stale lock. Takeovers are serialized by a second lock file, and a takeover only removes the
 * lock it judged stale (same token), so two processes recovering at once never remove a live lock.
 */
async function takeOver(paths: LockPaths): Promise<void> {
  const stale = await readOwner(paths.lock);
  if (!(await tryCreate(paths.takeover, String(process.pid)))) {
    const stats = await stat(paths.takeover).catch(() => undefined);
    // A takeover lasts microseconds; one this old belongs to a process that died during it.
    if (stats && Date.now() - stats.mtimeMs > UNREADABLE_STALE_MS) await unlink(paths.takeover).catch(() => undefined);
    await sleep(1);
    return;
  }
  try {
    const current = await readOwner(paths.lock);
    const same = typeof stale === "object" && typeof current === "object" ? stale.token === current.token : stale === current;
    if (same && (await isStale(paths.lock))) await unlink(paths.lock).catch(() => undefined);
  } finally {
    await unlink(paths.takeover).catch(() => undefined);
  }
}

// Only a takeover removes someone else's lock, and only when its owner is dead: a live holder can remove
// its lock without reading it back first.
async function releaseLock(path: string): Promise<void> {
  await unlink(path).catch((error: unknown) => {
    if (errnoOf(error) !== "ENOENT") throw mapFsError(error, `Removing the lock ${path}`);
  });
}

async function readOwner(path: string): Promise<LockOwner | "missing" | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return "missing";
    throw mapFsError(error, `Reading the lock ${path}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (typeof parsed.host === "string" && typeof parsed.pid === "number" && typeof parsed.token === "string") return parsed as LockOwner;
  } catch {
    // a lock being written right now, or garbage: judged by its age
  }
  return undefined;
}
