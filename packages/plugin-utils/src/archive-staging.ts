import { createHash } from "node:crypto";
import { normalizeTreePath } from "./archive-path.js";
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

/** What an archive reader says of one entry (tar-stream's header fields, which the buffer reader also gives). */
export interface ArchiveHeader {
  readonly name: string;
  readonly type?: string | null;
  readonly mode?: number | null;
  readonly mtime?: Date;
  readonly size?: number | null;
  readonly linkname?: string | null;
}

/** Counts what an archive writes: `add` throws to refuse the archive once a budget is spent. */
export interface StagingMeter {
  /** One more file or link of `size` bytes (a file's size as its header declares it, which is what is written). */
  add(size: number): void;
}

/** A file entry whose bytes the reader writes next (`writeChunk`, then `finishFile`). */
export interface FileWrite {
  readonly path: string;
  readonly mode: number;
  readonly mtime: Date | undefined;
  readonly size: number;
  readonly descriptor: number;
  readonly hash: ReturnType<typeof createHash>;
}

/**
 * The rules every archive from the sandbox is staged by, whichever reader parses it: names that leave the
 * tree, links that are absolute or leave it, special files, and any entry that repeats a path or lies below
 * a link or file of the archive are refused (see `StagingTree`). Nothing outside `staging` is touched; each
 * file gets its mode and time here, so committing it is a rename. `rename` maps an archive name to the path
 * to stage it at (e.g. a single file's new name).
 */
export class ArchiveStaging {
  private readonly staged = new Map<string, StagedEntry>();
  private readonly tree: StagingTree;

  constructor(
    staging: string,
    private readonly rename: (name: string) => string = (name) => name,
    private readonly meter?: StagingMeter,
  ) {
    this.tree = new StagingTree(staging);
  }

  /** Stages a non-file entry, or opens a file entry and returns it for its bytes; undefined: nothing to read. */
  begin(header: ArchiveHeader): FileWrite | undefined {
    const name = archiveName(header.name);
    if (name === "") return undefined;
    const path = normalizeTreePath(this.rename(name), "archive entry");
    const mode = transferMode(header.mode ?? 0o644);
    const mtime = header.mtime;
    if (header.type === "directory") {
      this.tree.directory(path);
      this.staged.set(path, { path, kind: "directory", mode, mtime, size: 0, sha256: "" });
    } else if (header.type === "file" || header.type === "contiguous-file") {
      this.meter?.add(header.size ?? 0);
      const descriptor = this.tree.openFile(path);
      return { path, mode, mtime, size: header.size ?? 0, descriptor, hash: createHash("sha256") };
    } else if (header.type === "symlink") {
      const target = header.linkname ?? "";
      assertLinkStaysInside(path, target);
      this.meter?.add(Buffer.byteLength(target));
      this.tree.link(path, target);
      this.staged.set(path, {
        path,
        kind: "link",
        mode: 0o777,
        size: Buffer.byteLength(target),
        sha256: createHash("sha256").update(target).digest("hex"),
        target,
      });
    } else if (header.type === "link") {
      // A hard link repeats an earlier file of the same archive (tar writes one for shared inodes).
      const original = this.staged.get(normalizeTreePath(this.rename(archiveName(header.linkname ?? "")), "hard link target"));
      if (original?.kind !== "file") throw stagingRefusal(path, "it is a hard link to something that is not a file of the archive");
      this.meter?.add(original.size);
      this.tree.copy(original.path, path, mode, original.mtime);
      this.staged.set(path, { ...original, path, mode });
    } else {
      throw stagingRefusal(path, `it is a ${header.type ?? "special"} entry`);
    }
    return undefined;
  }

  writeChunk(file: FileWrite, chunk: Buffer): void {
    file.hash.update(chunk);
    this.tree.write(file.descriptor, chunk);
  }

  /** Gives the file its mode and time and records it; `complete: false` (a failed read) only closes it. */
  finishFile(file: FileWrite, complete = true): void {
    if (!complete) {
      this.tree.abandon(file.descriptor);
      return;
    }
    this.tree.finishFile(file.descriptor, file.mode, file.mtime);
    const { path, mode, mtime, size } = file;
    this.staged.set(path, { path, kind: "file", mode, mtime, size, sha256: file.hash.digest("hex") });
  }

  entries(): StagedEntry[] {
    return [...this.staged.values()];
  }
}

/** An archive name without the "./" prefix and trailing slashes tar writes; "" for the top itself. */
function archiveName(name: string): string {
  const trimmed = name.replace(/\/+$/, "");
  if (trimmed === ".") return "";
  return trimmed.startsWith("./") ? trimmed.slice(2) : trimmed;
}
