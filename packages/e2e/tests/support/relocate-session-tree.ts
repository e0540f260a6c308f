import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createPathRewriter } from "@outpost/conversations";
import type { PathPair } from "@outpost/conversations";

/**
 * Rewrites old workspace / home paths in every text file of a downloaded session directory, including
 * paths stored as hex-encoded bytes (Copilot's rewind snapshots keep `encodedPath.data`). Stands in for an
 * agent's conversation store until that store exists.
 */
export async function relocateSessionTree(directory: string, pairs: readonly PathPair[]): Promise<number> {
  const rewrite = createPathRewriter(pairs);
  let changed = 0;
  for (const name of await readdir(directory, { recursive: true })) {
    const path = join(directory, name);
    if (!(await stat(path)).isFile() || !/\.(jsonl?|ya?ml|md)$/.test(name)) continue;
    const text = await readFile(path, "utf8");
    const hexRewritten = text.replace(/"data":\s*"([0-9a-f]+)"/g, (match, hex: string) => {
      const decoded = Buffer.from(hex, "hex").toString("utf8");
      const relocated = rewrite(decoded);
      return relocated === decoded ? match : match.replace(hex, Buffer.from(relocated, "utf8").toString("hex"));
    });
    const relocated = rewrite(hexRewritten);
    if (relocated !== text) {
      await writeFile(path, relocated);
      changed += 1;
    }
  }
  return changed;
}
