import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { assertLinkStaysInside } from "./link-target.js";

export interface TreeEntry {
  /** Relative to the scanned top, `/`-separated; directories come before their contents. */
  readonly path: string;
  readonly kind: "directory" | "file" | "link";
  /** Permission bits (0o7777). */
  readonly mode: number;
  readonly target?: string;
}

export interface ScannedTree {
  readonly kind: "directory" | "file";
  readonly entries: readonly TreeEntry[];
}

/** Lists a file or directory to transfer, refusing links that are absolute or leave it and special files. */
export async function scanTree(source: string, check: () => void): Promise<ScannedTree> {
  const top = await lstat(source).catch((error: NodeJS.ErrnoException) => {
    throw new OutpostError(
      "workspace",
      `Cannot transfer ${JSON.stringify(source)}: ${error.code === "ENOENT" ? "it does not exist" : error.message}. Check the source path.`,
      {
        cause: error,
        details: { source },
      },
    );
  });
  if (top.isFile()) return { kind: "file", entries: [{ path: "", kind: "file", mode: top.mode & 0o7777 }] };
  if (!top.isDirectory()) {
    throw new OutpostError(
      "workspace",
      `Cannot transfer ${JSON.stringify(source)}: it is ${top.isSymbolicLink() ? "a symbolic link" : "not a regular file or directory"}. Give the file or directory itself.`,
      {
        details: { source },
      },
    );
  }
  const entries: TreeEntry[] = [];
  await walk(source, "", entries, check);
  return { kind: "directory", entries };
}

async function walk(top: string, relative: string, entries: TreeEntry[], check: () => void): Promise<void> {
  check();
  const names = (await readdir(join(top, relative))).sort();
  const paths = names.map((name) => (relative === "" ? name : `${relative}/${name}`));
  const found = await Promise.all(paths.map((path) => lstat(join(top, path))));
  for (const [index, stats] of found.entries()) {
    const path = paths[index]!;
    if (stats.isSymbolicLink()) {
      const target = await readlink(join(top, path));
      assertLinkStaysInside(path, target);
      entries.push({ path, kind: "link", mode: stats.mode & 0o7777, target });
    } else if (stats.isDirectory()) {
      entries.push({ path, kind: "directory", mode: stats.mode & 0o7777 });
      await walk(top, path, entries, check);
    } else if (stats.isFile()) {
      entries.push({ path, kind: "file", mode: stats.mode & 0o7777 });
    } else {
      throw new OutpostError(
        "workspace",
        `Refused ${JSON.stringify(path)}: it is a special file (socket, pipe or device). Leave it out of the transfer.`,
        {
          details: { path },
        },
      );
    }
  }
}
