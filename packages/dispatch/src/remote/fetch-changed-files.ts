import { createReadStream } from "node:fs";
import { rm } from "node:fs/promises";
import { posix } from "node:path";
import { OutpostError, tailLines, type FileManifestEntry, type SandboxLease } from "@outpost/core";
import { createStaging, normalizeTreePath, unpackBufferToStaging, unpackToStaging, type StagedEntry } from "@outpost/plugin-utils";
import type { SandboxStatus } from "./sandbox-work.js";
import { BudgetMeter, UNBOUNDED, type SyncBackBudget } from "./sync-back-budget.js";
import { stagedGitlinksRefused } from "./staged-gitlinks.js";

/** What the agent left uncommitted in a remote sandbox, downloaded into a host staging directory. */
export interface ChangedFiles {
  /** Host directory beside the worktree holding the staged files (remove it when done). */
  readonly staging: string;
  /** Changed or new files and links, verified. */
  readonly entries: readonly StagedEntry[];
  /** Paths the agent deleted. */
  readonly deleted: readonly string[];
  /** How the files came: inline with the listing, as a fileTransfers batch, or as a tar stream. */
  readonly via: "inline archive" | "fileTransfers" | "tar stream";
}

/**
 * In the sandbox, before it is released: brings what the agent left uncommitted (`listed`, from
 * `listChangedPaths`) into a staging directory beside `worktree`: from the archive the listing command sent
 * inline when the files were small, else through the lease's `fileTransfers` (manifest, SHA-256-checked
 * batch), or else as one tar stream. Everything the sandbox says
 * is hostile: a name that is not a plain relative path, or that reaches into `.git`, an entry that is not a
 * regular file or a link staying inside the tree, or one that was not asked for, is refused (code `workspace`)
 * before the host worktree is touched. Returns undefined when nothing is uncommitted.
 */
export async function fetchChangedFiles(
  lease: SandboxLease,
  worktree: string,
  listed: ChangedPaths,
  signal?: AbortSignal,
  budget: SyncBackBudget = UNBOUNDED,
): Promise<ChangedFiles | undefined> {
  const { changed, deleted, manifest, archive } = listed;
  if (changed.length === 0 && deleted.length === 0) return undefined;
  // Counted again here, whatever the sandbox's own count said: by declared sizes before a batch, as staged otherwise.
  const meter = new BudgetMeter(budget);
  const staging = await createStaging(worktree);
  try {
    const via = archive ? "inline archive" : lease.fileTransfers ? "fileTransfers" : "tar stream";
    const entries =
      changed.length === 0
        ? []
        : archive
          ? unpackListed(archive, changed, staging, meter, signal)
          : await download(lease, changed, staging, manifest, meter, signal);
    const wanted = new Set(changed);
    for (const entry of entries)
      if (!wanted.has(entry.path) || (entry.kind !== "file" && entry.kind !== "link"))
        throw refused(entry.path, entry.kind === "directory" ? "it is a directory, not a file" : "it was not asked for");
    return { staging, entries: entries.filter((entry) => entry.kind !== "directory"), deleted, via };
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

/** The paths the sandbox's `git status` names, each checked (code `workspace`), and the manifest made with them. */
export interface ChangedPaths {
  readonly changed: readonly string[];
  readonly deleted: readonly string[];
  readonly manifest?: FileManifestEntry[];
  /** The tar of exactly these paths the listing command sent inline, when small. */
  readonly archive?: Buffer;
}

/** Splits the sandbox's status (from `collectSandboxWork`) into changed and deleted paths, refusing any that is not plain. */
export function listChangedPaths({ records, manifest, archive, stagedGitlinks }: SandboxStatus): ChangedPaths {
  if (stagedGitlinks !== undefined && stagedGitlinks.length > 0) throw stagedGitlinksRefused(stagedGitlinks);
  const changed: string[] = [];
  const deleted: string[] = [];
  for (const record of records.split("\0").filter(Boolean)) {
    const path = checkedPath(record.slice(3));
    (record.slice(0, 2).includes("D") ? deleted : changed).push(path);
  }
  return { changed, deleted, ...(manifest === undefined ? {} : { manifest }), ...(archive === undefined ? {} : { archive }) };
}

/**
 * The inline tar, unpacked by the shared checked reader: it must hold every listed path (the check after
 * it refuses anything else), else the sandbox lied about its files (code `workspace`).
 */
function unpackListed(archive: Buffer, paths: readonly string[], staging: string, meter: BudgetMeter, signal?: AbortSignal): StagedEntry[] {
  const staged = unpackBufferToStaging(archive, staging, () => signal?.throwIfAborted(), meter);
  const found = new Set(staged.map((entry) => entry.path));
  const missing = paths.find((path) => !found.has(path));
  if (missing !== undefined) throw refused(missing, "the archive the sandbox sent of its files does not hold it");
  return staged;
}

async function download(
  lease: SandboxLease,
  paths: readonly string[],
  staging: string,
  listed: FileManifestEntry[] | undefined,
  meter: BudgetMeter,
  signal?: AbortSignal,
): Promise<StagedEntry[]> {
  const transfers = lease.fileTransfers;
  if (transfers) {
    // The manifest made with the listing counts only when it names exactly the listed paths.
    const manifest = listed && sameEntries(listed, paths) ? listed : await transfers.manifest(lease.root, paths, { signal });
    for (const entry of manifest) {
      checkedPath(entry.path);
      meter.add(entry.size);
    }
    await transfers.downloadBatch(lease.root, manifest, staging, { signal });
    return manifest;
  }
  // No batch capability: one tar stream of exactly these paths, unpacked by the shared checked reader.
  const archive = posix.join(lease.home, ".outpost", "changed.tar");
  const packed = await lease.invoke({
    executable: "sh",
    arguments: ["-c", 'tar -cf "$1" --null --no-recursion -T -', "sh", archive],
    stdin: paths.map((path) => `${path}\0`).join(""),
    directory: lease.root,
    signal,
    deadlineMs: 600_000,
  });
  if (packed.status !== 0)
    throw new OutpostError(
      "workspace",
      `Could not pack the sandbox's uncommitted files (tar exit ${packed.status}): ${tailLines(packed.stderr, 300)}.`,
    );
  const local = `${staging}.tar`;
  try {
    await lease.download(archive, local, { signal });
    return await unpackToStaging(createReadStream(local), staging, () => signal?.throwIfAborted(), undefined, meter);
  } finally {
    await rm(local, { force: true });
  }
}

function sameEntries(manifest: readonly FileManifestEntry[], paths: readonly string[]): boolean {
  const wanted = new Set(paths);
  return manifest.length === wanted.size && manifest.every((entry) => wanted.has(entry.path));
}

/** A path `git status` printed: plain, relative, staying inside the tree and out of any `.git`. */
function checkedPath(path: string): string {
  const clean = normalizeTreePath(path, "uncommitted file from the sandbox");
  if (clean !== path || clean === "") throw refused(path, "it is not a plain relative path");
  if (path.includes("\n")) throw refused(path, "it contains a newline");
  if (path.split("/").some((part) => part.toLowerCase() === ".git")) throw refused(path, "it reaches into a .git directory");
  return path;
}

function refused(path: string, problem: string): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused to bring ${JSON.stringify(path)} back from the sandbox: ${problem}. Nothing of the sandbox's uncommitted files reached the host worktree.`,
    { details: { path } },
  );
}
