import { lstat, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type FileManifestEntry, type SandboxLease } from "@outpost/core";
import { MANIFEST, parseManifestOutput } from "@outpost/plugin-utils";
import type { Workspace } from "../workspace/workspace.js";
import { objectId, sandboxGitConfigArguments } from "./sandbox-git-command.js";

/** What the sandbox says it left uncommitted; everything in it is hostile until checked. */
export interface SandboxStatus {
  /** `git status --porcelain=v1 -z` records. */
  readonly records: string;
  /** The fileTransfers manifest of the changed paths, made in the same command; absent: ask `manifest()`. */
  readonly manifest?: FileManifestEntry[];
}

/** What a remote sandbox holds of the agent's work, on the host; nothing in it is trusted yet. */
export interface SandboxWork {
  /** Host path of the bundle of the agent's commits since the baseline; undefined when the branch did not move. */
  readonly bundle: string | undefined;
  /** What the sandbox says it left uncommitted. */
  readonly status: SandboxStatus;
}

/** Paths the command puts in its own manifest; beyond this the host asks `manifest()`, which chunks them. */
const INLINE_MANIFEST_BYTES = 128 * 1024;

/** Results up to this size come back in the command's own output (base64): no download round trip. */
const INLINE_BYTES = 1024 * 1024;
/** Starts the inline part of the command's output. */
const INLINE_MARKER = "@@outpost-inline@@";
/** The only files the sync back reads, inline or downloaded. */
const RESULT_FILES = ["status", "manifest", "work.bundle"] as const;

/**
 * One command makes everything the sync back needs, in one directory (each command and transfer is a round
 * trip to a remote sandbox): the work branch's tip and, unless it is the baseline, a bundle of the commits
 * since it (the whole branch when the sandbox no longer holds the baseline: the host's ancestry check
 * refuses that either way) with its size; then `git status` of what the agent left uncommitted and, when
 * `with` is `manifest`, the shared MANIFEST of those paths (modes, sizes, SHA-256; one that the script
 * refused is left out, and `manifest()` then reports the refusal). When all of it is small, it follows in
 * the output after INLINE_MARKER, one `<name> <base64>` line per file; otherwise the host downloads the
 * directory. Prints `<tip>` and `<bundle bytes>` first. Exit 200: no work branch; 201: no bundle; 202: no listing.
 */
const SYNC_BACK = `out=$1; root=$2; with=$3; manifest=$4; ref=$5; baseline=$6; inline=$7; shift 7
mkdir -p "$out" && rm -f "$out/status" "$out/manifest" "$out/work.bundle" || exit 202
tip=$(git "$@" rev-parse --verify --quiet "$ref^{commit}") || exit 200
printf '%s\\n' "$tip"
if [ "$tip" != "$baseline" ]; then
  git "$@" bundle create --quiet "$out/work.bundle" "$ref" "^$baseline" 2>/dev/null ||
    git "$@" bundle create --quiet "$out/work.bundle" "$ref" || exit 201
  wc -c < "$out/work.bundle"
fi
git "$@" status --porcelain=v1 -z --untracked-files=all --no-renames > "$out/status" || exit 202
listing() {
  [ "$with" = manifest ] && [ "$(wc -c < "$out/status")" -le ${INLINE_MANIFEST_BYTES} ] || return 0
  # One argument per line (a name with a newline splits, and the host then finds the manifest does not match).
  IFS='
'
  set -f
  set -- $(tr '\\0' '\\n' < "$out/status" | grep -v -e '^.D' -e '^D' | cut -c4- | sed 's|^|./|')
  [ $# -gt 0 ] || return 0
  sh -c "$manifest" outpost-manifest "$root" "$@" > "$out/manifest.part" 2>/dev/null && mv "$out/manifest.part" "$out/manifest"
}
listing
command -v base64 >/dev/null 2>&1 || exit 0
# wc -c on a regular file reads its size, not its bytes (a large bundle is not read just to be counted).
total=0
for name in ${RESULT_FILES.join(" ")}; do
  [ -f "$out/$name" ] && total=$((total + $(wc -c < "$out/$name")))
done
[ "$total" -le "$inline" ] || exit 0
echo ${INLINE_MARKER}
for name in ${RESULT_FILES.join(" ")}; do
  [ -f "$out/$name" ] || continue
  printf '%s ' "$name"
  base64 < "$out/$name" | tr -d '\\n'
  echo
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
      ...sandboxGitConfigArguments(),
    ],
    directory: lease.root,
    signal,
    deadlineMs: 600_000,
    // Room for the inline files (base64: 4 bytes per 3) and the lines before them.
    retain: Math.ceil((INLINE_BYTES * 4) / 3) + 64 * 1024,
  });
  if (made.status !== 0)
    throw new OutpostError(
      "workspace",
      `Could not ${FAILED[made.status] ?? "collect the agent's work"} in the sandbox (exit ${made.status}): ` +
        `${made.stderr.trim().slice(-500)}. Check that git is installed in the sandbox image.`,
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
  if (inline === undefined) await lease.download(inside, local, { signal });
  else await writeInline(inline, local);
  const bundle = moved ? join(local, "work.bundle") : undefined;
  if (bundle !== undefined) {
    const size = (await plainFile(bundle))?.size;
    if (size === undefined || size > maxBytes) throw tooLarge(workspace, size, maxBytes);
  }
  const records = await readPlain(join(local, "status"));
  if (records === undefined) throw new OutpostError("workspace", "The sandbox's list of uncommitted files is missing or not a plain file.");
  const manifest = await readPlain(join(local, "manifest"));
  return { bundle, status: manifest === undefined ? { records } : { records, manifest: parseManifestOutput(manifest) } };
}

/** The lines before INLINE_MARKER, and the inline part after it (undefined when the files were left to download). */
function splitInline(stdout: string): [string, string | undefined] {
  const at = stdout.indexOf(`\n${INLINE_MARKER}\n`);
  return at === -1 ? [stdout, undefined] : [stdout.slice(0, at + 1), stdout.slice(at + INLINE_MARKER.length + 2)];
}

/** Writes the `<name> <base64>` lines of the result files into `local` (new files only; other names are ignored). */
async function writeInline(inline: string, local: string): Promise<void> {
  await mkdir(local, { recursive: true });
  const written = new Set<string>();
  for (const line of inline.split("\n")) {
    const space = line.indexOf(" ");
    const name = line.slice(0, space);
    if (space === -1 || !(RESULT_FILES as readonly string[]).includes(name)) continue;
    if (written.has(name))
      throw new OutpostError("workspace", `The sandbox's work was refused before the host was touched: its output holds ${name} twice.`);
    written.add(name);
    await writeFile(join(local, name), Buffer.from(line.slice(space + 1), "base64"), { flag: "wx" });
  }
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
