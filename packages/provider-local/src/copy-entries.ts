import { createHash } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { chmod, lstat, mkdir, mkdtemp, readlink, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { OutpostError, normalizeRelativePath } from "@outpost/core";
import type { FileManifestEntry } from "@outpost/core";
import { placeLink } from "./copy-tree.js";
import { textSha256 } from "./file-sha256.js";
import { assertNoLinkOnTheWay } from "./no-link-on-the-way.js";
import { assertLinkStaysInside, assertNoLinkLeavesDestination, transferMode } from "@outpost/plugin-utils";

/**
 * Copies exactly `entries` from `source` to `destination`. Every path is checked and every file is
 * staged beside the destination and its SHA-256 verified before anything (a file, a link or a
 * directory) is created in the destination: a refused batch leaves it as it was.
 */
export async function copyEntries(
  source: string,
  entries: readonly FileManifestEntry[],
  destination: string,
  check: () => void,
): Promise<void> {
  const paths = entries.map((entry) => {
    const path = normalizeRelativePath(entry.path, "manifest entry");
    if (path === "")
      throw new OutpostError("workspace", "Refused a manifest entry with an empty path. Give each entry a path relative to the source.");
    if (entry.kind !== "file" && entry.kind !== "link") {
      throw new OutpostError(
        "workspace",
        `Refused manifest entry ${JSON.stringify(entry.path)} of kind ${JSON.stringify(entry.kind)}. Only "file" and "link" entries can be moved.`,
      );
    }
    return path;
  });
  for (const path of paths) await assertNoLinkOnTheWay(source, path);
  await assertNoLinkLeavesDestination(destination, paths, new Set());
  const staged: { from: string; to: string; mode: number }[] = [];
  await mkdir(dirname(destination), { recursive: true });
  const staging = await mkdtemp(join(dirname(destination), ".outpost-batch-"));
  try {
    for (const [index, entry] of entries.entries()) {
      check();
      const path = paths[index]!;
      const to = join(destination, path);
      if (entry.kind === "link") {
        const target = await readlink(join(source, path)).catch((error) => {
          throw mismatch(entry, `it is not a symbolic link any more (${(error as Error).message})`);
        });
        assertLinkStaysInside(path, target);
        if (textSha256(target) !== entry.sha256) throw mismatch(entry, "its target changed");
        staged.push({ from: target, to, mode: -1 });
        continue;
      }
      const stats = await lstat(join(source, path)).catch(() => undefined);
      if (!stats?.isFile()) throw mismatch(entry, "it is not a regular file any more");
      const temporary = join(staging, String(index));
      staged.push({ from: temporary, to, mode: transferMode(entry.mode) });
      const hash = createHash("sha256");
      let size = 0;
      await pipeline(
        createReadStream(join(source, path)),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            hash.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        createWriteStream(temporary),
      );
      if (hash.digest("hex") !== entry.sha256 || size !== entry.size)
        throw mismatch(entry, "its SHA-256 or size differs from the manifest");
    }
    for (const item of staged) {
      check();
      await mkdir(dirname(item.to), { recursive: true });
      if (item.mode < 0) await placeLink(item.from, item.to);
      else {
        await chmod(item.from, item.mode);
        await rename(item.from, item.to);
      }
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

function mismatch(entry: FileManifestEntry, problem: string): OutpostError {
  return new OutpostError("conflict", `Refused to move ${JSON.stringify(entry.path)}: ${problem}. Build a fresh manifest and try again.`, {
    details: { path: entry.path, sha256: entry.sha256 },
  });
}
