import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Moves `staged` to `target`; a previous `target` is kept aside until the new one is in place. */
export async function replaceDirectory(staged: string, target: string): Promise<void> {
  const aside = join(dirname(target), `.${basename(target)}.old-${randomBytes(4).toString("hex")}`);
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
