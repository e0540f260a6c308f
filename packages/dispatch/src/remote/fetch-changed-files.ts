import { mkdir, rm } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { OutpostError, type FileManifestEntry, type SandboxLease } from "@outpost/core";
import { createStaging, normalizeTreePath, unpackBufferToStaging, type StagedEntry } from "@outpost/plugin-utils";
import { sandboxManifest } from "./sandbox-manifest.js";
import { verifyStagedFiles } from "./verify-staged-files.js";
import type { SandboxStatus } from "./sandbox-work.js";
import { BudgetMeter, UNBOUNDED, type SyncBackBudget } from "./sync-back-budget.js";
import { stagedGitlinksRefused } from "./staged-gitlinks.js";

/** What the agent left uncommitted in a remote sandbox, downloaded into a host staging directory. */
export interface ChangedFiles {
  /** Host directory beside the worktree holding the staged files (remove it when done). */
  readonly staging: string;
  /** Changed or new files and links, verified against the manifest. */
  readonly entries: readonly StagedEntry[];
  /** Paths the agent deleted. */
  readonly deleted: readonly string[];
  /** How the files came: inline with the listing, as a fileTransfers batch, or one by one through download(). */
  readonly via: "inline archive" | "fileTransfers" | "one by one";
}

/**
 * In the sandbox, before it is released: brings what the agent left uncommitted (`listed`, from
 * `listChangedPaths`) into a staging directory beside `worktree`. Page 002: with the lease's `fileTransfers`
 * only the changed files travel, SHA-256 checked: from the archive the listing command sent inline when they
 * were small, else as a batch; without them, file by file through `download()`. Whichever way, every file is
 * checked on the host against the manifest (verify-staged-files.ts). Everything the sandbox says is hostile: a
 * name that is not a plain relative path, or that reaches into `.git`, an entry that is not a regular file or
 * a link staying inside the tree, or one that was not asked for, is refused (code `workspace`) before the
 * host worktree is touched. Returns undefined when nothing is uncommitted.
 */
export async function fetchChangedFiles(
  lease: SandboxLease,
  worktree: string,
  listed: ChangedPaths,
  signal?: AbortSignal,
  budget: SyncBackBudget = UNBOUNDED,
): Promise<ChangedFiles | undefined> {
  const { changed, deleted, archive } = listed;
  if (changed.length === 0 && deleted.length === 0) return undefined;
  // Counted again here, whatever the sandbox's own count said: by declared sizes before a download, as unpacked otherwise.
  const meter = new BudgetMeter(budget);
  const staging = await createStaging(worktree);
  try {
    const transfers = lease.fileTransfers;
    // The inline archive is the faster path of a lease that declares fileTransfers; another lease gets the page's.
    const inline = archive !== undefined && transfers !== undefined;
    const via = inline ? "inline archive" : transfers ? "fileTransfers" : "one by one";
    let entries: StagedEntry[] = [];
    if (changed.length > 0) {
      const manifest = await manifestOf(lease, changed, listed.manifest, signal);
      for (const entry of manifest) checkedPath(entry.path);
      if (inline) unpackListed(archive, changed, staging, meter, signal);
      else {
        for (const entry of manifest) meter.add(entry.size);
        if (transfers) await transfers.downloadBatch(lease.root, manifest, staging, { signal });
        else await downloadOneByOne(lease, manifest, staging, signal);
      }
      entries = await verifyStagedFiles(staging, manifest, changed, signal);
    }
    return { staging, entries, deleted, via };
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
  const wanted = new Set(paths);
  for (const entry of staged)
    if (!wanted.has(entry.path) || (entry.kind !== "file" && entry.kind !== "link"))
      throw refused(entry.path, entry.kind === "directory" ? "it is a directory, not a file" : "it was not asked for");
  return staged;
}

/** The manifest made with the listing when it names exactly the listed paths; else the lease's, or one made in the sandbox. */
async function manifestOf(
  lease: SandboxLease,
  paths: readonly string[],
  listed: FileManifestEntry[] | undefined,
  signal: AbortSignal | undefined,
): Promise<FileManifestEntry[]> {
  if (listed && sameEntries(listed, paths)) return listed;
  return lease.fileTransfers ? lease.fileTransfers.manifest(lease.root, paths, { signal }) : sandboxManifest(lease, paths, signal);
}

/** Page 002's path for a lease without fileTransfers: each listed file through `download()`, into its place in staging. */
async function downloadOneByOne(
  lease: SandboxLease,
  manifest: readonly FileManifestEntry[],
  staging: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  for (const entry of manifest) {
    signal?.throwIfAborted();
    const destination = join(staging, ...entry.path.split("/"));
    await mkdir(dirname(destination), { recursive: true });
    await lease.download(posix.join(lease.root, entry.path), destination, { signal });
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
