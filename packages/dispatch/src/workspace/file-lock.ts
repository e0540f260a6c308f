import { createHash, randomUUID } from "node:crypto";
import { link, lstat, mkdir, readdir, rm, unlink, utimes, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { OutpostError } from "@outpost/core";
import { readHostFile } from "./host-written.js";
import { judgeLock, LOCK_HEARTBEAT_MS, LOCK_SILENCE_MS, UNREADABLE_LOCK_GRACE_MS } from "./lock-judgement.js";
import { currentProcess, describeProcess, liveness, parseIdentity, type ProcessIdentity } from "@outpost/plugin-utils";

export interface FileLockOptions {
  /** Give up after this long (code `timeout`); 0 tries once. Default 120,000. */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
  /** Told once the wait passes a second, and every 30 s after, who holds the lock. */
  readonly onWait?: (message: string) => void;
  /** Extra facts stored in the lock file for whoever finds it held (e.g. a dispatch id). */
  readonly details?: Readonly<Record<string, string>>;
}

/** A lock this process holds. */
export interface FileLock {
  readonly path: string;
  /** Removes the lock file if it is still this holder's (never someone else's). */
  release(): Promise<void>;
}

/** What a lock file says about its holder. */
export interface LockHolder {
  readonly owner?: ProcessIdentity;
  readonly acquiredAt?: string;
  readonly details?: Readonly<Record<string, string>>;
}

/** Runs `work` while holding an exclusive lock file, across processes. */
export async function withFileLock<T>(path: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const lock = await acquireFileLock(path, options);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}

/**
 * Takes the lock, waiting while a live process holds it. The file is created complete in one step (a
 * hard link of a written file), holds the owner's identity and a unique token; a lock whose owner is gone
 * is taken over by compare-and-delete, so however many processes find it stale, one removes it.
 */
export async function acquireFileLock(path: string, options: FileLockOptions = {}): Promise<FileLock> {
  await mkdir(dirname(path), { recursive: true });
  const started = Date.now();
  const waitMs = options.waitMs ?? 120_000;
  let nextNotice = started + 1_000;
  for (let attempt = 0; ; attempt += 1) {
    const lock = await tryFileLock(path, options);
    if ("release" in lock) return lock;
    if (options.signal?.aborted)
      throw new OutpostError("aborted", `Waiting for the lock ${path} was aborted.`, { cause: options.signal.reason });
    const now = Date.now();
    if (now - started >= waitMs) {
      throw new OutpostError(
        "timeout",
        `Could not take the lock ${path} within ${waitMs} ms: ${describeHolder(lock)}. If that process is not an outpost run any more, break the lock with \`outpost unlock ${path}\` and retry.`,
        { details: { lock: path, ...(lock.owner ? { owner: lock.owner } : {}) } },
      );
    }
    if (options.onWait && now >= nextNotice) {
      options.onWait(`Waiting for the lock ${path}, held by ${describeHolder(lock)}.`);
      nextNotice = now + 30_000;
    }
    await new Promise((done) => setTimeout(done, Math.min(5 + attempt * 5, 50) + Math.random() * 10));
  }
}

/** One attempt: the lock, or what its file says about the live holder (after clearing a stale one). */
export async function tryFileLock(path: string, options: Pick<FileLockOptions, "details"> = {}): Promise<FileLock | LockHolder> {
  await mkdir(dirname(path), { recursive: true });
  const token = randomUUID();
  const content = JSON.stringify({
    owner: currentProcess(),
    token,
    acquiredAt: new Date().toISOString(),
    // Says this holder renews the file: only such a lock may be judged by its silence.
    renewsEveryMs: LOCK_HEARTBEAT_MS,
    ...(options.details ? { details: options.details } : {}),
  });
  for (let round = 0; round < 3; round += 1) {
    if (await createExclusive(path, content)) {
      await removeTakeoverMarkers(path);
      const heartbeat = renewWhileHeld(path, token);
      return {
        path,
        release: () => {
          clearInterval(heartbeat);
          return releaseIfOwned(path, token);
        },
      };
    }
    const found = await readLock(path);
    if (!found) continue;
    if (!isStale(found)) return found.holder;
    await takeOver(path, found);
  }
  return (await readLock(path))?.holder ?? {};
}

/**
 * Removes the lock file at `path` (compare-and-delete: never a lock that replaced it meanwhile): at once when its
 * holder is gone, one judged alive only with `force`. Says who held it and whether it was removed.
 */
export async function breakFileLock(path: string, force = false): Promise<{ holder?: LockHolder; stale: boolean; removed: boolean }> {
  const found = await readLock(path);
  if (!found) return { stale: true, removed: false };
  const stale = isStale(found);
  if (!stale && !force) return { holder: found.holder, stale, removed: false };
  const again = await readLock(path);
  if (again?.id !== found.id) return { holder: found.holder, stale, removed: false };
  await unlink(path).catch(ignoreMissing);
  await removeTakeoverMarkers(path);
  return { holder: found.holder, stale, removed: true };
}

/** What a lock file holds, or undefined when there is none. */
export async function readLockHolder(path: string): Promise<LockHolder | undefined> {
  return (await readLock(path))?.holder;
}

interface FoundLock {
  /** Tells this lock file apart from any other one that may later sit at the same path. */
  readonly id: string;
  readonly holder: LockHolder;
  readonly ageMs: number;
  readonly readable: boolean;
  /** The file's last write (its holder renews it) and whether it is the old pid-only format. */
  readonly writtenAtMs: number;
  readonly legacy?: boolean;
  /** Its holder renews it (newer outposts): silence past the window then means it is gone. */
  readonly renews?: boolean;
}

async function createExclusive(path: string, content: string): Promise<boolean> {
  // Named apart from lock and marker files, which are matched by prefix.
  const temporary = join(dirname(path), `.writing-${randomUUID()}`);
  await writeFile(temporary, content, { mode: 0o600 });
  try {
    await link(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await rm(temporary, { force: true });
  }
}

async function readLock(path: string): Promise<FoundLock | undefined> {
  // Whoever could write a lock file could make a live holder look dead: only the host user's own are read.
  const [bytes, info] = await Promise.all([
    readHostFile(path, { what: "a lock file", code: "workspace" }),
    lstat(path).catch(() => undefined),
  ]);
  const text = bytes?.toString("utf8");
  if (text === undefined || !info) return undefined;
  const ageMs = Date.now() - info.mtimeMs;
  const legacy = /^(\d+)\n?$/.exec(text);
  if (legacy) {
    // Written by an older outpost: a pid alone, on this host.
    return {
      id: `legacy:${info.ino}:${info.mtimeMs}:${text}`,
      holder: { owner: { pid: Number(legacy[1]), host: currentProcess().host } },
      ageMs,
      readable: true,
      writtenAtMs: info.mtimeMs,
      legacy: true,
    };
  }
  const parsed = (() => {
    try {
      return JSON.parse(text) as { owner?: unknown; token?: unknown; acquiredAt?: unknown; details?: unknown; renewsEveryMs?: unknown };
    } catch {
      return undefined;
    }
  })();
  const owner = parseIdentity(parsed?.owner);
  if (!parsed || !owner || typeof parsed.token !== "string") {
    return { id: `damaged:${info.ino}:${info.mtimeMs}:${digest(text)}`, holder: {}, ageMs, readable: false, writtenAtMs: info.mtimeMs };
  }
  return {
    id: `token:${parsed.token}`,
    ageMs,
    readable: true,
    writtenAtMs: info.mtimeMs,
    renews: typeof parsed.renewsEveryMs === "number",
    holder: {
      owner,
      ...(typeof parsed.acquiredAt === "string" ? { acquiredAt: parsed.acquiredAt } : {}),
      ...(parsed.details && typeof parsed.details === "object" ? { details: parsed.details as Record<string, string> } : {}),
    },
  };
}

function isStale(found: FoundLock): boolean {
  const owner = found.readable ? found.holder.owner : undefined;
  const evidence = {
    ...(owner ? { owner } : {}),
    writtenAtMs: found.writtenAtMs,
    legacy: found.legacy === true,
    renews: found.renews === true,
  };
  return judgeLock(evidence) === "stale";
}

/**
 * Renews the lock file's time while this holder has it, so a waiter that cannot see this process (another
 * container or host) knows it still runs; never touches a file that is not this holder's any more.
 */
function renewWhileHeld(path: string, token: string): NodeJS.Timeout {
  const timer = setInterval(() => {
    void readLock(path)
      .then((found) => (found?.id === `token:${token}` ? utimes(path, new Date(), new Date()) : undefined))
      .catch(() => undefined);
  }, LOCK_HEARTBEAT_MS);
  timer.unref();
  return timer;
}

/**
 * Compare-and-delete of a stale lock: the right to remove this very lock file is a marker named after
 * its id, created exclusively, so one contender wins; the winner deletes the lock only if it still is
 * the one judged stale. Markers stay until the next holder removes them, so a contender that read the
 * stale lock long ago cannot win again. A winner that died leaves a marker that is itself a stale lock.
 */
async function takeOver(path: string, stale: FoundLock): Promise<void> {
  const marker = `${path}.takeover-${digest(stale.id).slice(0, 24)}`;
  const content = JSON.stringify({ owner: currentProcess(), token: randomUUID(), acquiredAt: new Date().toISOString() });
  if (!(await createExclusive(marker, content))) {
    const other = await readLock(marker);
    if (other && isStale(other)) await takeOver(marker, other);
    return;
  }
  const again = await readLock(path);
  if (again?.id === stale.id) await unlink(path).catch(ignoreMissing);
}

async function removeTakeoverMarkers(path: string): Promise<void> {
  const prefix = `${basename(path)}.takeover-`;
  const names = await readdir(dirname(path)).catch(() => [] as string[]);
  await Promise.all(names.filter((name) => name.startsWith(prefix)).map((name) => rm(join(dirname(path), name), { force: true })));
}

async function releaseIfOwned(path: string, token: string): Promise<void> {
  const found = await readLock(path);
  if (found?.id === `token:${token}`) await unlink(path).catch(ignoreMissing);
}

/** Who holds a lock, for messages. */
export function describeHolder(holder: LockHolder): string {
  if (!holder.owner) return `an unreadable lock file (it is taken over once older than ${UNREADABLE_LOCK_GRACE_MS / 1_000} s)`;
  const state =
    liveness(holder.owner) === "unknown"
      ? `, which cannot be checked from here (another machine or container; taken over once it stops renewing the lock for ${LOCK_SILENCE_MS / 1_000} s)`
      : "";
  const details = holder.details
    ? Object.entries(holder.details)
        .map(([key, value]) => `, ${key} ${value}`)
        .join("")
    : "";
  return `${describeProcess(holder.owner)}${details}${holder.acquiredAt ? ` since ${holder.acquiredAt}` : ""}${state}`;
}

function digest(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function ignoreMissing(error: NodeJS.ErrnoException): void {
  if (error.code !== "ENOENT") throw error;
}
