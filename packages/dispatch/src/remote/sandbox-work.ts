import { lstat, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { gunzipSync } from "node:zlib";
import { OutpostError, tailLines, type FileManifestEntry, type SandboxLease } from "@outpost/core";
import { MANIFEST, parseManifestOutput } from "@outpost/plugin-utils";
import type { Workspace } from "../workspace/workspace.js";
import { objectId, sandboxGitConfigArguments } from "./sandbox-git-command.js";
import { BUDGET_FUNCTION, budgetFound, OVER_BUDGET, overBudget, UNBOUNDED, type SyncBackBudget } from "./sync-back-budget.js";
import { STAGED_GITLINKS, stagedGitlinks } from "./staged-gitlinks.js";

/** What the sandbox says it left uncommitted; everything in it is hostile until checked. */
export interface SandboxStatus {
  /** `git status --porcelain=v1 -z` records. */
  readonly records: string;
  /** The fileTransfers manifest of the changed paths, made in the same command; absent: ask `manifest()`. */
  readonly manifest?: FileManifestEntry[];
  /** A tar the same command made of exactly the listed paths, when small (leases with fileTransfers): nothing left to download. */
  readonly archive?: Buffer;
  /** Gitlinks staged but not committed, which the records leave out (they list no submodule): refused by `listChangedPaths`. */
  readonly stagedGitlinks?: readonly string[];
}

/** What a remote sandbox holds of the agent's work, on the host; nothing in it is trusted yet. */
export interface SandboxWork {
  /** Host path of the bundle of the agent's commits since the baseline; undefined when the branch did not move. */
  readonly bundle: string | undefined;
  /** What the sandbox says it left uncommitted. */
  readonly status: SandboxStatus;
}

/** Paths the command lists (archive or manifest) up to this much status; beyond, the host asks `manifest()`, which chunks them. */
const INLINE_MANIFEST_BYTES = 128 * 1024;

/** Results up to this size come back in the command's own output (base64): no download round trip. */
const INLINE_BYTES = 1024 * 1024;
/** Starts the inline part of the command's output. */
const INLINE_MARKER = "@@outpost-inline@@";
/** Listed files up to this many tar bytes travel inline as an archive, checked by the host like a download (no download round trip). */
const INLINE_ARCHIVE_BYTES = 8 * 1024 * 1024;
/** The only files the sync back reads; the archives only inline. */
const RESULT_FILES = ["status", "manifest", "work.bundle", "changed.tar", "changed.tar.gz"] as const;

/**
 * One command makes everything the sync back needs, in one directory (each command and transfer is a round
 * trip to a remote sandbox): the work branch's tip and, unless it is the baseline, a bundle of the commits
 * since it (the whole branch when the sandbox no longer holds the baseline: the host's ancestry check
 * refuses that either way) with its size; then `git status` of what the agent left uncommitted (submodules
 * aside: STAGED_GITLINKS), the shared MANIFEST of those paths (modes, sizes, SHA-256; one that the script
 * refused is left out, and `manifest()` then reports the refusal) and, when `with` is `manifest` (the lease
 * has fileTransfers) and the files are small, a tar of exactly their paths (gzip when the sandbox has it),
 * which the host checks against the manifest as any download. When all of it is small, it follows in the output after
 * INLINE_MARKER, as `@@<name>` lines each followed by the file in base64; otherwise the archive is dropped
 * and the host downloads the directory. Prints `<tip>` and `<bundle bytes>` first. Exit 200: no work
 * branch; 201: no bundle; 202: no listing; OVER_BUDGET: the uncommitted files are over the sync-back
 * budget (BUDGET_FUNCTION), checked before anything is packed.
 */
const SYNC_BACK = `out=$1; root=$2; with=$3; manifest=$4; ref=$5; baseline=$6; inline=$7; maxbytes=$8; maxfiles=$9; shift 9
mkdir -p "$out" && rm -f "$out/status" "$out/manifest" "$out/work.bundle" "$out/changed.tar" "$out/changed.tar.gz" "$out/pack.failed" ||
  exit 202
tip=$(git "$@" rev-parse --verify --quiet "$ref^{commit}") || exit 200
printf '%s\\n' "$tip"
if [ "$tip" != "$baseline" ]; then
  git "$@" bundle create --quiet "$out/work.bundle" "$ref" "^$baseline" 2>/dev/null ||
    git "$@" bundle create --quiet "$out/work.bundle" "$ref" || exit 201
  wc -c < "$out/work.bundle"
fi
git "$@" status --porcelain=v1 -z --untracked-files=all --no-renames --ignore-submodules=all > "$out/status" || exit 202
${STAGED_GITLINKS}
${BUDGET_FUNCTION}
budget
command -v base64 >/dev/null 2>&1 && encode=1 || encode=
listing() {
  [ -s "$out/status" ] && [ "$(wc -c < "$out/status")" -le ${INLINE_MANIFEST_BYTES} ] || return 0
  # One argument per line (a name with a newline splits, and the host then finds the files do not match).
  IFS='
'
  set -f
  set -- $(tr '\\0' '\\n' < "$out/status" | grep -v -e '^.D' -e '^D' | cut -c4- | sed 's|^|./|')
  [ $# -gt 0 ] || return 0
  # Every file that comes back is checked against this manifest, whichever way it travels (page 002).
  sh -c "$manifest" outpost-manifest "$root" "$@" > "$out/manifest.part" 2>/dev/null && mv "$out/manifest.part" "$out/manifest"
  # The inline archive is the faster path of a lease with fileTransfers; without, files pass one by one.
  [ -n "$encode" ] && [ "$with" = manifest ] && pack "$@"
  return 0
}
# The tar stops being read past the limit; a path tar could not read, or an archive too large, means none.
pack() {
  { tar -cf - -- "$@" 2>/dev/null || : > "$out/pack.failed"; } | head -c $((${INLINE_ARCHIVE_BYTES} + 1)) > "$out/changed.tar"
  if [ ! -e "$out/pack.failed" ] && [ "$(wc -c < "$out/changed.tar")" -le ${INLINE_ARCHIVE_BYTES} ]; then
    command -v gzip >/dev/null 2>&1 && { gzip -1 "$out/changed.tar" 2>/dev/null || rm -f "$out/changed.tar.gz"; }
    for packed in "$out/changed.tar.gz" "$out/changed.tar"; do
      [ -f "$packed" ] && [ "$(wc -c < "$packed")" -le "$inline" ] && return 0
    done
  fi
  rm -f "$out/changed.tar" "$out/changed.tar.gz" "$out/pack.failed"
  return 1
}
listing
[ -n "$encode" ] || exit 0
# wc -c on a regular file reads its size, not its bytes (a large bundle is not read just to be counted).
total=0
for name in ${RESULT_FILES.join(" ")}; do
  [ -f "$out/$name" ] && total=$((total + $(wc -c < "$out/$name")))
done
[ "$total" -le "$inline" ] || { rm -f "$out/changed.tar" "$out/changed.tar.gz"; exit 0; }
echo ${INLINE_MARKER}
for name in ${RESULT_FILES.join(" ")}; do
  [ -f "$out/$name" ] || continue
  printf '\\n@@%s\\n' "$name"
  base64 < "$out/$name"
done
exit 0`;

const FAILED: Readonly<Record<number, string>> = {
  200: "read the work branch",
  201: "bundle the agent's commits",
  202: "list the uncommitted files",
};

/**
 * In the sandbox, before it is released: bundles what the agent committed on the work branch and lists what
 * it left uncommitted (see SYNC_BACK), then downloads both into `staging`. A bundle over `maxBytes` is refused
 * (code `workspace`) before anything is downloaded, and again after if the sandbox lied about its size.
 */
export async function collectSandboxWork(
  workspace: Workspace,
  lease: SandboxLease,
  staging: string,
  maxBytes: number,
  signal?: AbortSignal,
  budget: SyncBackBudget = UNBOUNDED,
): Promise<SandboxWork> {
  const inside = posix.join(lease.home, ".outpost", "sync-back");
  const made = await lease.invoke({
    executable: "sh",
    arguments: [
      "-c",
      SYNC_BACK,
      "outpost-sync-back",
      inside,
      lease.root,
      lease.fileTransfers === undefined ? "" : "manifest",
      MANIFEST,
      `refs/heads/${workspace.branch!}`,
      workspace.baseline,
      String(Math.min(INLINE_BYTES, maxBytes)),
      String(budget.bytes),
      String(budget.files),
      ...sandboxGitConfigArguments(),
    ],
    directory: lease.root,
    signal,
    deadlineMs: 600_000,
    // Room for the inline files (base64: 4 bytes per 3) and the lines before them.
    retain: Math.ceil((INLINE_BYTES * 4) / 3) + 64 * 1024,
  });
  if (made.status === OVER_BUDGET) throw overBudget(budget, budgetFound(made.stderr), "in the sandbox, before anything was sent");
  if (made.status !== 0)
    throw new OutpostError(
      "workspace",
      `Could not ${FAILED[made.status] ?? "collect the agent's work"} in the sandbox (exit ${made.status}): ` +
        `${tailLines(made.stderr, 500)}. Check that git is installed in the sandbox image.`,
      { details: { status: made.status } },
    );
  const [printed, inline] = splitInline(made.stdout);
  const [tip, counted] = printed.trim().split("\n");
  const moved = objectId(tip?.trim() ?? "") !== workspace.baseline;
  if (moved) {
    const claimed = Number(counted?.trim());
    if (counted === undefined || !Number.isSafeInteger(claimed)) throw tooLarge(workspace, undefined, maxBytes);
    if (claimed > maxBytes) throw tooLarge(workspace, claimed, maxBytes);
  }
  const local = join(staging, "sync-back");
  await rm(local, { recursive: true, force: true });
  const inlined = inline === undefined ? undefined : await writeInline(inline, local);
  if (inlined === undefined) await lease.download(inside, local, { signal });
  const bundle = moved ? join(local, "work.bundle") : undefined;
  if (bundle !== undefined) {
    const size = (await plainFile(bundle))?.size;
    if (size === undefined || size > maxBytes) throw tooLarge(workspace, size, maxBytes);
  }
  const records = await readPlain(join(local, "status"));
  if (records === undefined) throw new OutpostError("workspace", "The sandbox's list of uncommitted files is missing or not a plain file.");
  const staged = stagedGitlinks(made.stderr);
  const listed = staged.length === 0 ? { records } : { records, stagedGitlinks: staged };
  const archive = inlined && inlineArchive(inlined);
  const manifest = await readPlain(join(local, "manifest"));
  return {
    bundle,
    status: { ...listed, ...(manifest === undefined ? {} : { manifest: parseManifestOutput(manifest) }), ...(archive ? { archive } : {}) },
  };
}

/** The inline tar of the listed files, unzipped (no more than the script would have packed: a bomb stops there). */
function inlineArchive(inlined: Map<string, Buffer>): Buffer | undefined {
  const plain = inlined.get("changed.tar");
  const zipped = inlined.get("changed.tar.gz");
  if (plain && zipped)
    throw new OutpostError(
      "workspace",
      "The sandbox's work was refused before the host was touched: its output holds two archives of its files.",
    );
  if (!zipped) return plain;
  try {
    return gunzipSync(zipped, { maxOutputLength: INLINE_ARCHIVE_BYTES });
  } catch (error) {
    throw new OutpostError(
      "workspace",
      `The sandbox's work was refused before the host was touched: the archive of its uncommitted files is corrupt or larger than ${INLINE_ARCHIVE_BYTES} bytes (${(error as Error).message}).`,
      { cause: error },
    );
  }
}

/** The lines before INLINE_MARKER, and the inline part after it (undefined when the files were left to download). */
function splitInline(stdout: string): [string, string | undefined] {
  const at = stdout.indexOf(`\n${INLINE_MARKER}\n`);
  return at === -1 ? [stdout, undefined] : [stdout.slice(0, at + 1), stdout.slice(at + INLINE_MARKER.length + 2)];
}

/**
 * Writes the `@@<name>` sections of the result files into `local` (new files only; other names are ignored)
 * and returns the archives among them, which are only read from here.
 */
async function writeInline(inline: string, local: string): Promise<Map<string, Buffer>> {
  await mkdir(local, { recursive: true });
  const written = new Map<string, Buffer>();
  for (const section of inline.split("\n@@").slice(1)) {
    const newline = section.indexOf("\n");
    const name = newline === -1 ? section : section.slice(0, newline);
    if (!(RESULT_FILES as readonly string[]).includes(name)) continue;
    if (written.has(name))
      throw new OutpostError("workspace", `The sandbox's work was refused before the host was touched: its output holds ${name} twice.`);
    // base64 lines: Buffer.from skips the line breaks.
    const bytes = Buffer.from(newline === -1 ? "" : section.slice(newline + 1), "base64");
    written.set(name, bytes);
    if (!name.startsWith("changed.")) await writeFile(join(local, name), bytes, { flag: "wx" });
  }
  return written;
}

/** A file the sandbox made, as long as it is a plain file (a link it planted is not read through). */
async function plainFile(path: string): Promise<{ size: number } | undefined> {
  const stats = await lstat(path).catch(() => undefined);
  return stats?.isFile() ? { size: stats.size } : undefined;
}

async function readPlain(path: string): Promise<string | undefined> {
  return (await plainFile(path)) === undefined ? undefined : readFile(path, "utf8");
}

function tooLarge(workspace: Workspace, bytes: number | undefined, maxBytes: number): OutpostError {
  return new OutpostError(
    "workspace",
    `The sandbox's work was refused before the host was touched: its bundle is ${bytes === undefined ? "of unknown size" : `${bytes} bytes`}, ` +
      `over the limit of ${maxBytes} bytes (limits.bundleBytes). The host repository is unchanged; raise limits.bundleBytes if the work is really that large.`,
    { details: { bytes, maxBytes, branch: workspace.branch } },
  );
}
