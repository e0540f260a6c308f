import { createHash } from "node:crypto";
import { chmod, lstat, mkdir, readFile, readdir, readlink, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { FileManifestEntry } from "@outpost/core";

/** One node of a host tree as the kit compares it: kind, permission bits and content (or link target). */
export interface TreeNode {
  readonly path: string;
  readonly kind: "directory" | "file" | "link";
  readonly mode?: number;
  readonly sha256?: string;
  readonly target?: string;
}

/** Names a transfer must carry unchanged: spaces, quotes, non-ASCII. */
export const AWKWARD_DIRECTORY = `dir with spaces 'single' "double"`;
export const AWKWARD_FILE = `ünïcødé 日本語 ✓.txt`;

/**
 * Writes the kit's fixture tree: binary files (every byte value), an executable with mode 0751, awkward
 * names, an empty directory, and relative links that stay inside the tree (to a file and to a directory).
 */
export async function writeFixtureTree(directory: string): Promise<void> {
  const every = Buffer.alloc(256 * 64);
  for (let index = 0; index < every.length; index++) every[index] = index % 256;
  const noise = incompressibleBytes(200 * 1024);
  await mkdir(join(directory, AWKWARD_DIRECTORY, "nested"), { recursive: true });
  await mkdir(join(directory, "empty"), { recursive: true });
  await mkdir(join(directory, "deep", "deeper", "empty too"), { recursive: true });
  await writeFile(join(directory, "every-byte.bin"), every);
  await writeFile(join(directory, "noise.bin"), noise);
  await writeFile(join(directory, "tool.sh"), "#!/bin/sh\necho tool\n");
  await chmod(join(directory, "tool.sh"), 0o751);
  await writeFile(join(directory, AWKWARD_DIRECTORY, AWKWARD_FILE), "awkward name ✓\n");
  await writeFile(join(directory, AWKWARD_DIRECTORY, "nested", 'it\'s "quoted".txt'), "quoted\n");
  await writeFile(join(directory, "deep", "deeper", "leaf.txt"), "");
  await chmod(join(directory, "deep", "deeper", "leaf.txt"), 0o640);
  await symlink("every-byte.bin", join(directory, "link-to-file"));
  await symlink("../../every-byte.bin", join(directory, "deep", "deeper", "link-up"));
  await symlink(AWKWARD_DIRECTORY, join(directory, "link-to-directory"));
}

/** Every node under `directory`, sorted by path; directories and links are not followed. */
export async function snapshotTree(directory: string, relative = ""): Promise<TreeNode[]> {
  const nodes: TreeNode[] = [];
  for (const name of (await readdir(join(directory, relative))).sort()) {
    const path = relative === "" ? name : `${relative}/${name}`;
    const full = join(directory, path);
    const stats = await lstat(full);
    if (stats.isSymbolicLink()) nodes.push({ path, kind: "link", target: await readlink(full) });
    else if (stats.isDirectory()) {
      nodes.push({ path, kind: "directory", mode: stats.mode & 0o777 });
      nodes.push(...(await snapshotTree(directory, path)));
    } else nodes.push({ path, kind: "file", mode: stats.mode & 0o777, sha256: sha256(await readFile(full)) });
  }
  return nodes;
}

/** The manifest entries a correct provider must report for the files and links under `directory`. */
export async function hostManifest(directory: string): Promise<FileManifestEntry[]> {
  const entries: FileManifestEntry[] = [];
  for (const node of await snapshotTree(directory)) {
    const full = join(directory, node.path);
    if (node.kind === "file") {
      const bytes = await readFile(full);
      entries.push({ path: node.path, kind: "file", mode: node.mode!, size: bytes.length, sha256: sha256(bytes) });
    } else if (node.kind === "link") {
      entries.push({
        path: node.path,
        kind: "link",
        mode: 0o777,
        size: Buffer.byteLength(node.target!),
        sha256: sha256(Buffer.from(node.target!)),
      });
    }
  }
  return entries;
}

/** Reproducible bytes that do not compress (SHA-256 digests of a counter), so no transfer can cheat. */
export function incompressibleBytes(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let offset = 0, index = 0; offset < size; offset += 32, index++) {
    createHash("sha256").update(String(index)).digest().copy(bytes, offset);
  }
  return bytes;
}

export function sha256(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}
