import { createHash } from "node:crypto";
import { chmod, lstat, mkdir, readFile, readdir, readlink, rm, symlink, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  OutpostError,
  normalizeRelativePath,
  type FileManifestEntry,
  type FileTransfers,
  type SandboxAnchors,
  type TransferOptions,
} from "@outpost/core";
import type { ReferenceFlaws } from "./provider-reference.js";
import { referenceGuard } from "./reference-guard.js";
import { assertDestinationSafe, assertLinkInside, batchPath, referenceSandboxPath, travellingMode } from "./reference-paths.js";

/** Manifests and batches of the reference lease: all or nothing, never through links (flaws switch parts off). */
export function referenceFileTransfers(lease: SandboxAnchors, flaws: ReferenceFlaws): FileTransfers {
  const transfers: FileTransfers = {
    async manifest(source, paths, options) {
      const check = referenceGuard(options, "The manifest", flaws);
      const base = await referenceSandboxPath(lease, source, "source", flaws);
      const found = new Map<string, FileManifestEntry>();
      for (const path of paths) await list(base, await batchPath(base, normalizeRelativePath(path, "manifest path")), found, check);
      return [...found.values()]
        .map((entry) => (entry.kind === "file" ? { ...entry, mode: travellingMode(entry.mode, flaws) } : entry))
        .sort((left, right) => (left.path < right.path ? -1 : 1));
    },
    async downloadBatch(source, entries, destination, options) {
      const check = referenceGuard(options, "The batch download", flaws);
      await copyBatch(await referenceSandboxPath(lease, source, "source", flaws), entries, resolve(destination), check, flaws);
    },
  };
  if (flaws.fileTransfers === "without uploadBatch") return transfers;
  return {
    ...transfers,
    async uploadBatch(source: string, entries: readonly FileManifestEntry[], destination: string, options?: TransferOptions) {
      const check = referenceGuard(options, "The batch upload", flaws);
      await copyBatch(resolve(source), entries, await referenceSandboxPath(lease, destination, "destination", flaws), check, flaws);
    },
  };
}

async function list(base: string, relative: string, found: Map<string, FileManifestEntry>, check: () => void): Promise<void> {
  check();
  const full = relative === "" ? base : join(base, relative);
  const stats = await lstat(full);
  if (stats.isDirectory()) {
    for (const name of await readdir(full)) await list(base, relative === "" ? name : `${relative}/${name}`, found, check);
  } else if (stats.isSymbolicLink()) {
    const target = await readlink(full);
    assertLinkInside(relative, target);
    found.set(relative, { path: relative, kind: "link", mode: 0o777, size: Buffer.byteLength(target), sha256: sha256(target) });
  } else {
    const bytes = await readFile(full);
    found.set(relative, { path: relative, kind: "file", mode: stats.mode & 0o7777, size: bytes.length, sha256: sha256(bytes) });
  }
}

/** Verifies every entry, then writes them all; `batchWritesAsItGoes` writes each one as soon as it is verified. */
async function copyBatch(
  from: string,
  entries: readonly FileManifestEntry[],
  to: string,
  check: () => void,
  flaws: ReferenceFlaws,
): Promise<void> {
  const paths = await Promise.all(entries.map((entry) => batchPath(from, entry.path)));
  if (!flaws.batchFollowsDestinationLinks) await assertDestinationSafe(to, paths, new Set());
  const verified: { path: string; entry: FileManifestEntry; content: Buffer | string }[] = [];
  for (const [index, entry] of entries.entries()) {
    check();
    const path = paths[index]!;
    const content = entry.kind === "link" ? await readlink(join(from, path)) : await readFile(join(from, path));
    if (entry.kind === "link") assertLinkInside(path, content as string);
    if (sha256(content) !== entry.sha256)
      throw new OutpostError("conflict", `The reference provider refused ${JSON.stringify(path)}: its SHA-256 differs from the manifest.`);
    verified.push({ path, entry, content });
    if (flaws.batchWritesAsItGoes) await write(to, verified.pop()!, flaws);
  }
  for (const item of verified) await write(to, item, flaws);
}

async function write(
  to: string,
  item: { path: string; entry: FileManifestEntry; content: Buffer | string },
  flaws: ReferenceFlaws,
): Promise<void> {
  const target = join(to, item.path);
  await mkdir(dirname(target), { recursive: true });
  await rm(target, { force: true });
  if (item.entry.kind === "link") await symlink(item.content, target);
  else {
    await writeFile(target, item.content);
    await chmod(target, travellingMode(item.entry.mode, flaws));
  }
}

function sha256(content: Buffer | string): string {
  return createHash("sha256").update(content).digest("hex");
}
