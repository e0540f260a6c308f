import { lstatSync } from "node:fs";
import { readdir, readlink, stat } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { assertLinkStaysInside } from "./link-target.js";

/** One entry of a host tree about to be packed; `path` is relative to the tree, `/`-separated. */
export interface HostEntry {
  readonly path: string;
  readonly kind: "directory" | "file" | "link";
  readonly mode: number;
  readonly size: number;
  readonly mtime: Date;
  /** Host path to read a file from. */
  readonly source: string;
  readonly target?: string;
}

export interface HostTree {
  readonly kind: "directory" | "file";
  /** Contents in parent-before-child order; for a file source, the one file with path "". */
  readonly entries: readonly HostEntry[];
}

/**
 * Lists a host file or directory before anything is sent, so a refused link (absolute or leaving the
 * tree) or a special file fails the transfer before the sandbox is touched. The top-level source is
 * followed if it is a link; nothing below it is.
 */
export async function scanHostTree(source: string, check: () => void): Promise<HostTree> {
  const top = await stat(source).catch((error: NodeJS.ErrnoException) => {
    throw new OutpostError(
      "workspace",
      `Cannot upload ${JSON.stringify(source)}: ${error.code === "ENOENT" ? "it does not exist" : error.message}. Check the host path.`,
      {
        cause: error,
        details: { source },
      },
    );
  });
  if (top.isFile()) {
    return { kind: "file", entries: [{ path: "", kind: "file", mode: top.mode & 0o7777, size: top.size, mtime: top.mtime, source }] };
  }
  if (!top.isDirectory()) throw special(source);
  const entries: HostEntry[] = [];
  await walk(source, "", entries, check);
  return { kind: "directory", entries };
}

async function walk(base: string, relative: string, entries: HostEntry[], check: () => void): Promise<void> {
  check();
  const directory = relative === "" ? base : join(base, relative);
  const names = (await readdir(directory)).sort();
  // Synchronous lstat: a thread-pool round trip per file costs more than the call (readdir still yields).
  const infos = names.map((name) => lstatSync(join(directory, name)));
  for (const [index, name] of names.entries()) {
    const path = relative === "" ? name : `${relative}/${name}`;
    if (name.includes("\n")) {
      throw new OutpostError("workspace", `Refused ${JSON.stringify(path)}: names with a newline cannot be transferred. Rename the file.`, {
        details: { path },
      });
    }
    const full = join(base, path);
    const info = infos[index]!;
    const common = { path, mode: info.mode & 0o7777, mtime: info.mtime, source: full };
    if (info.isSymbolicLink()) {
      const target = await readlink(full);
      assertLinkStaysInside(path, target);
      entries.push({ ...common, kind: "link", size: 0, target });
    } else if (info.isDirectory()) {
      entries.push({ ...common, kind: "directory", size: 0 });
      await walk(base, path, entries, check);
    } else if (info.isFile()) {
      entries.push({ ...common, kind: "file", size: info.size });
    } else {
      throw special(full);
    }
  }
}

function special(path: string): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused ${JSON.stringify(path)}: it is a special file (socket, pipe or device). Leave it out of the transfer.`,
    {
      details: { path },
    },
  );
}
