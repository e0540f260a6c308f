import { lstatSync } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { assertLinkStaysInside } from "./link-target.js";
import { transferMode } from "./transfer-mode.js";

/** One entry of a host tree about to be transferred. */
export interface HostTreeEntry {
  /** Relative to the scanned top, `/`-separated; "" for a file source. Directories come before their contents. */
  readonly path: string;
  readonly kind: "directory" | "file" | "link";
  /** Permission bits only (transferMode). */
  readonly mode: number;
  /** Bytes, for a file; 0 otherwise. */
  readonly size: number;
  readonly mtime: Date;
  /** Host path to read the entry from. */
  readonly source: string;
  /** A link's target, as written in the link. */
  readonly target?: string;
}

export interface HostTree {
  readonly kind: "directory" | "file";
  readonly entries: readonly HostTreeEntry[];
}

/**
 * Lists a host file or directory before anything is transferred, so every refusal happens before the
 * first write. Rule: the source itself must be a regular file or a directory — a symlinked source is
 * refused, never followed; nothing below it is followed either; a link inside is kept only when it stays
 * inside the tree (`assertLinkStaysInside`); a special file (socket, pipe, device) is refused.
 * `check` is called once per directory so a deadline or abort can stop a long scan.
 */
export async function scanHostTree(source: string, check: () => void): Promise<HostTree> {
  const top = await lstat(source).catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === "ENOENT" ? "it does not exist" : error.message;
    throw new OutpostError("workspace", `Cannot transfer ${JSON.stringify(source)}: ${reason}. Check the source path.`, {
      cause: error,
      details: { source },
    });
  });
  if (top.isFile()) {
    return { kind: "file", entries: [{ path: "", kind: "file", mode: transferMode(top.mode), size: top.size, mtime: top.mtime, source }] };
  }
  if (!top.isDirectory()) {
    const what = top.isSymbolicLink() ? "a symbolic link" : "not a regular file or directory";
    throw new OutpostError("workspace", `Cannot transfer ${JSON.stringify(source)}: it is ${what}. Give the file or directory itself.`, {
      details: { source },
    });
  }
  const entries: HostTreeEntry[] = [];
  await walk(source, "", entries, check);
  return { kind: "directory", entries };
}

async function walk(top: string, relative: string, entries: HostTreeEntry[], check: () => void): Promise<void> {
  check();
  const directory = relative === "" ? top : join(top, relative);
  const names = (await readdir(directory)).sort();
  // Synchronous lstat: a thread-pool round trip per file costs more than the call (readdir still yields).
  const infos = names.map((name) => lstatSync(join(directory, name)));
  for (const [index, name] of names.entries()) {
    const path = relative === "" ? name : `${relative}/${name}`;
    const source = join(top, path);
    const info = infos[index]!;
    const common = { path, mode: transferMode(info.mode), mtime: info.mtime, source };
    if (info.isSymbolicLink()) {
      const target = await readlink(source);
      assertLinkStaysInside(path, target);
      entries.push({ ...common, kind: "link", size: 0, target });
    } else if (info.isDirectory()) {
      entries.push({ ...common, kind: "directory", size: 0 });
      await walk(top, path, entries, check);
    } else if (info.isFile()) {
      entries.push({ ...common, kind: "file", size: info.size });
    } else {
      throw new OutpostError(
        "workspace",
        `Refused ${JSON.stringify(path)}: it is a special file (socket, pipe or device). Leave it out of the transfer.`,
        { details: { path } },
      );
    }
  }
}
