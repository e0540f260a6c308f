import { stat } from "node:fs/promises";

/** The index.lock a git failure complains about (`Unable to create '<path>/index.lock': File exists`). */
export function indexLockIn(stderr: string): string | undefined {
  return /Unable to create '([^']*index\.lock)'/.exec(stderr)?.[1];
}

/**
 * Says what a leftover index.lock is: one older than `staleAfterMs` with no git running on it is stale
 * (a git process that crashed), so the user is told to delete it instead of being told to retry.
 */
export async function describeIndexLock(path: string, staleAfterMs = 10_000): Promise<string> {
  const info = await stat(path).catch(() => undefined);
  if (!info) return `${path} was held by another git command`;
  const ageSeconds = Math.round((Date.now() - info.mtimeMs) / 1000);
  return Date.now() - info.mtimeMs > staleAfterMs
    ? `a stale ${path} (${ageSeconds} s old) blocks git: if no git command is running in this repository, a crashed one left it; delete it`
    : `${path} is held by another git command (${ageSeconds} s old); wait for it to finish`;
}
