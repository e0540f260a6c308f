import { createHash } from "node:crypto";
import { createWriteStream } from "node:fs";
import { copyFile, mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { OutpostError } from "@outpost/core";
import { normalizeTreePath } from "./archive-path.js";
import { extract as createExtract } from "tar-stream";
import { assertLinkStaysInside } from "./link-target.js";

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
 * Writes a tar stream from the sandbox into `staging` (a fresh host directory), refusing names that
 * leave the tree, links that are absolute or leave it, and special files. Nothing outside `staging`
 * is touched; the caller commits the result once the whole archive was accepted.
 * `rename` maps an archive name to the path to stage it at (e.g. a single file's new name).
 */
export async function unpackToStaging(
  archive: Readable,
  staging: string,
  check: () => void,
  rename: (name: string) => string = (name) => name,
): Promise<StagedEntry[]> {
  const staged = new Map<string, StagedEntry>();
  const extract = createExtract();
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
      const full = join(staging, path);
      const mode = (header.mode ?? 0o644) & 0o7777;
      const mtime = header.mtime;
      await mkdir(join(full, ".."), { recursive: true });
      if (header.type === "directory") {
        entry.resume();
        await mkdir(full, { recursive: true });
        staged.set(path, { path, kind: "directory", mode, mtime, size: 0, sha256: "" });
      } else if (header.type === "file" || header.type === "contiguous-file") {
        const hash = createHash("sha256");
        entry.on("data", (chunk) => hash.update(chunk as Buffer));
        await pipeline(entry, createWriteStream(full, { mode: 0o600 }));
        staged.set(path, { path, kind: "file", mode, mtime, size: header.size ?? 0, sha256: hash.digest("hex") });
      } else if (header.type === "symlink") {
        entry.resume();
        const target = header.linkname ?? "";
        assertLinkStaysInside(path, target);
        await symlink(target, full);
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
        if (original?.kind !== "file") throw refused(path, "it is a hard link to something that is not a file of the archive");
        await copyFile(join(staging, original.path), full);
        staged.set(path, { ...original, path, mode });
      } else {
        entry.resume();
        throw refused(path, `it is a ${header.type ?? "special"} entry`);
      }
    }
  })();
  archive.on("error", (error) => extract.destroy(error));
  archive.pipe(extract);
  await done;
  return [...staged.values()];
}

/** An archive name without the "./" prefix and trailing slashes tar writes; "" for the top itself. */
function archiveName(name: string): string {
  const trimmed = name.replace(/\/+$/, "");
  if (trimmed === ".") return "";
  return trimmed.startsWith("./") ? trimmed.slice(2) : trimmed;
}

function refused(path: string, problem: string): OutpostError {
  return new OutpostError("workspace", `Refused ${JSON.stringify(path)} from the sandbox: ${problem}. Leave it out of the transfer.`, {
    details: { path },
  });
}
