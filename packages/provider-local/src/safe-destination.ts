import { lstat, realpath } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError, isInside } from "@outpost/core";

/**
 * Refuses, before anything is written, a destination where an existing link on the way to any of
 * `paths` (relative, `/`-separated) would carry the write outside `base`. `directories` lists the paths
 * that will receive children, so a link there counts too; the last part of any other path is replaced,
 * never followed.
 */
export async function assertSafeDestination(base: string, paths: readonly string[], directories: ReadonlySet<string>): Promise<void> {
  const realBase = await realpath(base).catch(() => undefined);
  if (realBase === undefined) return; // nothing exists yet, so nothing can redirect the writes
  const checked = new Set<string>();
  for (const path of paths) {
    const parts = path.split("/").filter((part) => part !== "");
    const walked = directories.has(path) ? parts.length : parts.length - 1;
    for (let index = 1; index <= walked; index++) {
      const prefix = parts.slice(0, index).join("/");
      if (checked.has(prefix)) continue;
      checked.add(prefix);
      const full = join(base, prefix);
      const stats = await lstat(full).catch(() => undefined);
      if (stats === undefined) break;
      if (!stats.isSymbolicLink()) continue;
      const landing = await realpath(full).catch(() => undefined);
      if (landing === undefined || !isInside(realBase, landing)) {
        throw new OutpostError(
          "workspace",
          `Refused to write ${JSON.stringify(path)}: ${JSON.stringify(prefix)} in the destination is a symbolic link that leads outside it. Remove the link or choose another destination.`,
          {
            details: { path, link: prefix },
          },
        );
      }
    }
  }
}
