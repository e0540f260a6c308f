import { randomBytes } from "node:crypto";
import { chmod, copyFile, lstat, mkdir, rename, rm, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { OutpostError } from "@outpost/core";
import { FILE_CONCURRENCY, inParallel } from "./in-parallel.js";
import { assertNoLinkLeavesDestination, scanHostTree } from "@outpost/plugin-utils";

/**
 * Copies a file to `destination`, or a directory's contents into `destination`, keeping modes, relative
 * links and empty directories. Everything is checked before the first write.
 */
export async function copyTree(source: string, destination: string, check: () => void): Promise<void> {
  const tree = await scanHostTree(source, check);
  const directories = new Set(tree.entries.filter((entry) => entry.kind === "directory").map((entry) => entry.path));
  if (tree.kind === "directory") {
    await assertNoLinkLeavesDestination(
      destination,
      tree.entries.map((entry) => entry.path),
      directories,
    );
  }
  check();
  if (tree.kind === "file") {
    await mkdir(dirname(destination), { recursive: true });
    await placeFile(source, destination, tree.entries[0]!.mode);
    return;
  }
  await makeDirectory(destination);
  for (const entry of tree.entries) if (entry.kind === "directory") await makeDirectory(join(destination, entry.path));
  await inParallel(
    tree.entries.filter((entry) => entry.kind !== "directory"),
    FILE_CONCURRENCY,
    async (entry) => {
      check();
      const to = join(destination, entry.path);
      if (entry.kind === "file") await placeFile(join(source, entry.path), to, entry.mode);
      else await placeLink(entry.target!, to);
    },
  );
  // Modes last and deepest first, so a read-only directory does not block writing its contents.
  for (const entry of [...tree.entries].reverse()) {
    if (entry.kind === "directory") await chmod(join(destination, entry.path), entry.mode);
  }
}

/** Writes beside, then renames over: an existing link at `to` is replaced, never followed. */
export async function placeFile(from: string, to: string, mode: number): Promise<void> {
  const staged = stagedName(to);
  try {
    await copyFile(from, staged);
    await chmod(staged, mode);
    await rename(staged, to);
  } catch (error) {
    await rm(staged, { force: true });
    throw writeError(to, error);
  }
}

export async function placeLink(target: string, to: string): Promise<void> {
  const staged = stagedName(to);
  try {
    await symlink(target, staged);
    await rename(staged, to);
  } catch (error) {
    await rm(staged, { force: true });
    throw writeError(to, error);
  }
}

async function makeDirectory(path: string): Promise<void> {
  const existing = await lstat(path).catch(() => undefined);
  if (existing?.isDirectory() || existing?.isSymbolicLink()) return;
  if (existing !== undefined) await rm(path, { force: true });
  await mkdir(path, { recursive: true });
}

export function stagedName(path: string): string {
  return join(dirname(path), `.outpost-${randomBytes(6).toString("hex")}.partial`);
}

function writeError(path: string, error: unknown): OutpostError {
  return new OutpostError(
    "workspace",
    `Could not write ${JSON.stringify(path)}: ${(error as Error).message}. Check that the destination is writable and not a directory where a file is expected.`,
    {
      cause: error,
      details: { path },
    },
  );
}
