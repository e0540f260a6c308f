import { lstat, realpath } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError, isInside } from "@outpost/core";

/**
 * Rule: no symbolic link on the way. Before anything is written under the host directory `base`, every
 * existing link on the way to one of `paths` (relative, `/`-separated) must resolve inside `base`;
 * otherwise the whole write is refused. `directories` names the paths that will receive children, so a
 * link standing there counts too; the last part of any other path is replaced by the write, never
 * followed. A `base` that does not exist yet passes: nothing can redirect the writes.
 */
export async function assertNoLinkLeavesDestination(
  base: string,
  paths: readonly string[],
  directories: ReadonlySet<string>,
): Promise<void> {
  const realBase = await realpath(base).catch(() => undefined);
  if (realBase === undefined) return;
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
          `Refused to write ${JSON.stringify(path)}: ${JSON.stringify(prefix)} in ${JSON.stringify(base)} is a symbolic link that leads outside it. Remove the link or choose another destination.`,
          { details: { path, link: prefix } },
        );
      }
    }
  }
}
