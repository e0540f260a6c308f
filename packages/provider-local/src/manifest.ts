import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError, normalizeRelativePath } from "@outpost/core";
import type { FileManifestEntry } from "@outpost/core";
import { fileSha256, textSha256 } from "./file-sha256.js";
import { assertLinkStaysInside } from "./link-target.js";
import { assertNoLinkOnTheWay } from "./no-link-on-the-way.js";

/** Lists `paths` under `source` (directories expand) as manifest entries, sorted and without duplicates. */
export async function buildManifest(source: string, paths: readonly string[], check: () => void): Promise<FileManifestEntry[]> {
  const found = new Map<string, FileManifestEntry>();
  for (const path of paths) {
    const relative = normalizeRelativePath(path, "manifest path");
    await assertNoLinkOnTheWay(source, relative);
    await visit(source, relative, found, check, true);
  }
  return [...found.values()].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : 0));
}

async function visit(source: string, relative: string, found: Map<string, FileManifestEntry>, check: () => void, named: boolean): Promise<void> {
  check();
  const full = relative === "" ? source : join(source, relative);
  const stats = await lstat(full).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" && named) {
      throw new OutpostError("workspace", `Cannot list ${JSON.stringify(relative)} under ${JSON.stringify(source)}: it does not exist. Check the path.`, { details: { path: relative } });
    }
    throw error;
  });
  if (stats.isDirectory()) {
    for (const name of (await readdir(full)).sort()) {
      await visit(source, relative === "" ? name : `${relative}/${name}`, found, check, false);
    }
  } else if (stats.isSymbolicLink()) {
    const target = await readlink(full);
    assertLinkStaysInside(relative, target);
    found.set(relative, { path: relative, kind: "link", mode: stats.mode & 0o7777, size: Buffer.byteLength(target), sha256: textSha256(target) });
  } else if (stats.isFile()) {
    found.set(relative, { path: relative, kind: "file", mode: stats.mode & 0o7777, size: stats.size, sha256: await fileSha256(full) });
  } else {
    throw new OutpostError("workspace", `Refused ${JSON.stringify(relative)}: it is a special file (socket, pipe or device). Leave it out of the manifest.`, { details: { path: relative } });
  }
}
