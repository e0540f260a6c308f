import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { OutpostError } from "@outpost/core";
import { runGit } from "./run-git.js";

/** Where an attempt's commits are kept until its branch is published: a git bundle in the result transport. */
export interface StoredBundle {
  /** Key in the result transport. */
  readonly key: string;
  /** The ref the bundle carries (the attempt's local branch), fetched by name. */
  readonly ref: string;
}

/** A private scratch folder, removed whatever happens. */
async function withScratchFolder<T>(use: (folder: string) => Promise<T>): Promise<T> {
  const folder = mkdtempSync(join(tmpdir(), "outpost-bundle-"));
  try {
    return await use(folder);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The commits of `ref` that `base` lacks, as the bytes of a git bundle. */
export function bundleCommits(directory: string, base: string, ref: string): Promise<Uint8Array> {
  return withScratchFolder(async (folder) => {
    const file = join(folder, "commits.bundle");
    await runGit(directory, ["bundle", "create", "--quiet", file, `^${base}`, ref]);
    return readFileSync(file);
  });
}

/**
 * Fetches a stored bundle's commits into the checkout `directory` and makes sure `head` came with them. The
 * bundle is read from a shared transport, so it is untrusted: git reads a bundle without checking its objects,
 * so it is unpacked into a scratch repository first (borrowing the checkout's objects, which the bundle builds
 * on), and only its one ref is fetched from there, every new object checked by fsck. A bundle that is corrupt,
 * carries objects fsck rejects or does not hold the recorded head is refused with code `transport`.
 */
export async function unbundleCommits(directory: string, bytes: Uint8Array, bundle: StoredBundle, head: string): Promise<void> {
  await withScratchFolder(async (folder) => {
    const file = join(folder, "commits.bundle");
    const scratch = join(folder, "scratch.git");
    writeFileSync(file, bytes, { flag: "wx", mode: 0o600 });
    try {
      await runGit(folder, ["init", "--quiet", "--bare", scratch]);
      writeFileSync(join(scratch, "objects", "info", "alternates"), `${resolve(directory, ".git", "objects")}\n`);
      await runGit(scratch, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", file, `+${bundle.ref}:refs/outpost/bundle`]);
      await runGit(directory, ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", scratch, "refs/outpost/bundle"]);
      await runGit(directory, ["cat-file", "-e", `${head}^{commit}`]);
    } catch (error) {
      throw new OutpostError(
        "transport",
        `The stored commits ${bundle.key} were refused: ${(error as Error).message} ` +
          "Check the result transport: if the job's stored commits are lost, enqueue the job again.",
        { cause: error, details: { key: bundle.key, head } },
      );
    }
  });
}
