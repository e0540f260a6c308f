import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError, normalizeRelativePath } from "@outpost/core";
import type { FileManifestEntry } from "@outpost/core";
import { fileSha256, textSha256 } from "./file-sha256.js";
import { FILE_CONCURRENCY, inParallel } from "./in-parallel.js";
import { assertLinkStaysInside, transferMode } from "@outpost/plugin-utils";
import { assertNoLinkOnTheWay } from "./no-link-on-the-way.js";

/** Lists `paths` under `source` (directories expand) as manifest entries, sorted and without duplicates. */
export async function buildManifest(source: string, paths: readonly string[], check: () => void): Promise<FileManifestEntry[]> {
  const files = new Map<string, { mode: number; size: number }>();
  const found = new Map<string, FileManifestEntry>();
  for (const path of paths) {
    const relative = normalizeRelativePath(path, "manifest path");
    await assertNoLinkOnTheWay(source, relative);
    await visit(source, relative, { files, found }, check, true);
  }
  // Hash after listing, several files at a time: listing is cheap, reading is what takes time.
  await inParallel([...files], FILE_CONCURRENCY, async ([path, { mode, size }]) => {
    check();
    found.set(path, { path, kind: "file", mode, size, sha256: await fileSha256(join(source, path), size) });
  });
  return [...found.values()].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

interface Listing {
  /** Regular files still to hash. */
  readonly files: Map<string, { mode: number; size: number }>;
  readonly found: Map<string, FileManifestEntry>;
}

async function visit(source: string, relative: string, listing: Listing, check: () => void, named: boolean): Promise<void> {
  check();
  const full = relative === "" ? source : join(source, relative);
  const stats = await lstat(full).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" && named) {
      throw new OutpostError(
        "workspace",
        `Cannot list ${JSON.stringify(relative)} under ${JSON.stringify(source)}: it does not exist. Check the path.`,
        { details: { path: relative } },
      );
    }
    throw error;
  });
  if (stats.isDirectory()) {
    const names = (await readdir(full)).sort();
    await Promise.all(names.map((name) => visit(source, relative === "" ? name : `${relative}/${name}`, listing, check, false)));
  } else if (stats.isSymbolicLink()) {
    const target = await readlink(full);
    assertLinkStaysInside(relative, target);
    listing.found.set(relative, {
      path: relative,
      kind: "link",
      mode: transferMode(stats.mode),
      size: Buffer.byteLength(target),
      sha256: textSha256(target),
    });
  } else if (stats.isFile()) {
    listing.files.set(relative, { mode: transferMode(stats.mode), size: stats.size });
  } else {
    throw new OutpostError(
      "workspace",
      `Refused ${JSON.stringify(relative)}: it is a special file (socket, pipe or device). Leave it out of the manifest.`,
      { details: { path: relative } },
    );
  }
}
