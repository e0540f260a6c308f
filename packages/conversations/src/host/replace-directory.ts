import { randomBytes } from "node:crypto";
import { lstat, readdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

const ASIDE = ".old-";

/** Moves `staged` to `target`; a previous `target` is kept aside until the new one is in place. */
export async function replaceDirectory(staged: string, target: string): Promise<void> {
  const aside = join(dirname(target), `.${basename(target)}${ASIDE}${randomBytes(4).toString("hex")}`);
  let moved = false;
  try {
    await rename(target, aside);
    moved = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  try {
    await rename(staged, target);
  } catch (error) {
    if (moved) await rename(aside, target);
    throw error;
  }
  if (moved) await rm(aside, { recursive: true, force: true });
}

/**
 * Puts back the copy `replaceDirectory` kept aside when a crash came between its two renames, so a
 * conversation is never lost on the host. A copy beside a present `target` is left alone: it may belong to
 * a replacement still running.
 */
export async function recoverDirectory(target: string): Promise<void> {
  const prefix = `.${basename(target)}${ASIDE}`;
  const names = await readdir(dirname(target)).catch(() => [] as string[]);
  const leftovers = names.filter((name) => name.startsWith(prefix) && /^[0-9a-f]{8}$/.test(name.slice(prefix.length)));
  if (leftovers.length === 0) return;
  const present = await lstat(target).then(
    () => true,
    () => false,
  );
  if (present) return;
  const newest = (
    await Promise.all(leftovers.map(async (name) => ({ name, at: (await lstat(join(dirname(target), name))).mtimeMs })))
  ).sort((a, b) => b.at - a.at)[0]!;
  await rename(join(dirname(target), newest.name), target).catch(() => undefined);
}
