import { createHash } from "node:crypto";
import { closeSync } from "node:fs";
import type { Readable } from "node:stream";
import { normalizeTreePath } from "./archive-path.js";
import { tarStream } from "./tar-stream-module.js";
import { assertLinkStaysInside } from "./link-target.js";
import { StagingTree, stagingRefusal } from "./staging-tree.js";
import { transferMode } from "./transfer-mode.js";

/** One entry written to the staging directory. */
export interface StagedEntry {
  readonly path: string;
  readonly kind: "directory" | "file" | "link";
  readonly mode: number;
  readonly mtime?: Date;
  readonly size: number;
  /** Of the bytes (file) or of the target text (link). */
  readonly sha256: string;
  readonly target?: string;
}

/**
 * Writes a tar stream from the sandbox into `staging` (a fresh host directory) in one pass, refusing names
 * that leave the tree, links that are absolute or leave it, special files, and any entry that repeats a
 * path or lies below a link or file of the archive (see `StagingTree`). Nothing outside `staging` is
 * touched; each file gets its mode and time here, so committing it is a rename. The caller commits the
 * result once the whole archive was accepted.
 * `rename` maps an archive name to the path to stage it at (e.g. a single file's new name).
 */
export async function unpackToStaging(
  archive: Readable,
  staging: string,
  check: () => void,
  rename: (name: string) => string = (name) => name,
): Promise<StagedEntry[]> {
  const staged = new Map<string, StagedEntry>();
  const tree = new StagingTree(staging);
  const extract = tarStream().extract();
  const done = (async () => {
    for await (const entry of extract) {
      check();
      const { header } = entry;
      const name = archiveName(header.name);
      if (name === "") {
        entry.resume();
        continue;
      }
      const path = normalizeTreePath(rename(name), "archive entry");
      const mode = transferMode(header.mode ?? 0o644);
      const mtime = header.mtime;
      if (header.type === "directory") {
        entry.resume();
        tree.directory(path);
        staged.set(path, { path, kind: "directory", mode, mtime, size: 0, sha256: "" });
      } else if (header.type === "file" || header.type === "contiguous-file") {
        const sha256 = await writeFile(tree, path, entry as AsyncIterable<Buffer>, mode, mtime);
        staged.set(path, { path, kind: "file", mode, mtime, size: header.size ?? 0, sha256 });
      } else if (header.type === "symlink") {
        entry.resume();
        const target = header.linkname ?? "";
        assertLinkStaysInside(path, target);
        tree.link(path, target);
        staged.set(path, {
          path,
          kind: "link",
          mode: 0o777,
          size: Buffer.byteLength(target),
          sha256: createHash("sha256").update(target).digest("hex"),
          target,
        });
      } else if (header.type === "link") {
        // A hard link repeats an earlier file of the same archive (tar writes one for shared inodes).
        entry.resume();
        const original = staged.get(normalizeTreePath(rename(archiveName(header.linkname ?? "")), "hard link target"));
        if (original?.kind !== "file") throw stagingRefusal(path, "it is a hard link to something that is not a file of the archive");
        tree.copy(original.path, path, mode, original.mtime);
        staged.set(path, { ...original, path, mode });
      } else {
        entry.resume();
        throw stagingRefusal(path, `it is a ${header.type ?? "special"} entry`);
      }
    }
  })();
  archive.on("error", (error) => extract.destroy(error));
  archive.pipe(extract);
  await done;
  return [...staged.values()];
}

/** Writes one file entry's bytes as they arrive and returns their SHA-256. */
async function writeFile(
  tree: StagingTree,
  path: string,
  entry: AsyncIterable<Buffer>,
  mode: number,
  mtime: Date | undefined,
): Promise<string> {
  const hash = createHash("sha256");
  const descriptor = tree.openFile(path);
  let finished = false;
  try {
    for await (const chunk of entry) {
      hash.update(chunk);
      tree.write(descriptor, chunk);
    }
    finished = true;
  } finally {
    if (finished) tree.finishFile(descriptor, mode, mtime);
    else closeSync(descriptor);
  }
  return hash.digest("hex");
}

/** An archive name without the "./" prefix and trailing slashes tar writes; "" for the top itself. */
function archiveName(name: string): string {
  const trimmed = name.replace(/\/+$/, "");
  if (trimmed === ".") return "";
  return trimmed.startsWith("./") ? trimmed.slice(2) : trimmed;
}
