import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { OutpostError } from "@outpost/core";

export interface FileLockOptions {
  /** Give up after this long (code `timeout`). */
  readonly waitMs?: number;
  readonly signal?: AbortSignal;
}

/**
 * Runs `work` while holding an exclusive lock file, across processes. The file holds the owner's pid so a
 * lock left by a dead process is taken over instead of blocking forever.
 */
export async function withFileLock<T>(path: string, work: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  await acquire(path, options);
  try {
    return await work();
  } finally {
    await rm(path, { force: true });
  }
}

async function acquire(path: string, options: FileLockOptions): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const started = Date.now();
  const waitMs = options.waitMs ?? 120_000;
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await open(path, "wx", 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (await ownerIsGone(path)) {
      await rm(path, { force: true });
      continue;
    }
    if (options.signal?.aborted) throw new OutpostError("aborted", `Waiting for the lock ${path} was aborted.`, { cause: options.signal.reason });
    if (Date.now() - started > waitMs) {
      throw new OutpostError("timeout", `Could not take the lock ${path} within ${waitMs} ms. If no other outpost process is running, delete that file and retry.`, { details: { lock: path } });
    }
    await new Promise((done) => setTimeout(done, Math.min(5 + attempt * 5, 50)));
  }
}

// A lock file without a readable pid is being written right now, unless it is older than this.
const UNREADABLE_LOCK_GRACE_MS = 5_000;

async function ownerIsGone(path: string): Promise<boolean> {
  const text = await readFile(path, "utf8").catch(() => undefined);
  const pid = /^\d+\n?$/.test(text ?? "") ? Number.parseInt(text!, 10) : Number.NaN;
  if (!Number.isInteger(pid) || pid <= 0) {
    const info = await stat(path).catch(() => undefined);
    return info !== undefined && Date.now() - info.mtimeMs > UNREADABLE_LOCK_GRACE_MS;
  }
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
