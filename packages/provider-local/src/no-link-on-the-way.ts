import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";

/** Refuses a relative path whose parent directories include a symbolic link (the last part may be one). */
export async function assertNoLinkOnTheWay(base: string, relative: string): Promise<void> {
  const parts = relative.split("/").filter((part) => part !== "");
  for (let index = 1; index < parts.length; index++) {
    const prefix = parts.slice(0, index).join("/");
    const stats = await lstat(join(base, prefix)).catch(() => undefined);
    if (stats === undefined) return;
    if (stats.isSymbolicLink()) {
      throw new OutpostError(
        "workspace",
        `Refused ${JSON.stringify(relative)}: ${JSON.stringify(prefix)} is a symbolic link, and paths are never followed through links. Name the files behind the link directly.`,
        {
          details: { path: relative, link: prefix },
        },
      );
    }
  }
}
