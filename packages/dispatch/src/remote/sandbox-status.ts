import { readFile, rm } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type FileManifestEntry, type SandboxLease } from "@outpost/core";
import { MANIFEST, parseManifestOutput } from "@outpost/plugin-utils";

/** What the sandbox says it left uncommitted; everything in it is hostile until checked. */
export interface SandboxStatus {
  /** `git status --porcelain=v1 -z` records. */
  readonly records: string;
  /** The fileTransfers manifest of the changed paths, made in the same command; absent: ask `manifest()`. */
  readonly manifest?: FileManifestEntry[];
}

/** Paths the listing command puts in its own manifest; beyond this the host asks `manifest()`, which chunks them. */
const INLINE_MANIFEST_BYTES = 128 * 1024;

/**
 * One command lists the sandbox's uncommitted files and, when `withManifest`, also makes their manifest
 * (the shared MANIFEST script: modes, sizes, SHA-256), so a sync back pays for one command and one
 * download, not three. A manifest the script refused is left out: `manifest()` then reports the refusal.
 */
const LIST_CHANGES = `out=$1; root=$2; with=$3; manifest=$4
mkdir -p "$out" && rm -f "$out/manifest" || exit 1
git -c core.hooksPath=/dev/null -c core.fsmonitor=false status --porcelain=v1 -z --untracked-files=all --no-renames > "$out/status" || exit 1
[ "$with" = manifest ] && [ "$(wc -c < "$out/status")" -le ${INLINE_MANIFEST_BYTES} ] || exit 0
# One argument per line (a name with a newline splits, and the host then finds the manifest does not match).
IFS='
'
set -f
set -- $(tr '\\0' '\\n' < "$out/status" | grep -v -e '^.D' -e '^D' | cut -c4- | sed 's|^|./|')
[ $# -gt 0 ] || exit 0
sh -c "$manifest" outpost-manifest "$root" "$@" > "$out/manifest.part" 2>/dev/null && mv "$out/manifest.part" "$out/manifest"
exit 0`;

export async function listSandboxChanges(lease: SandboxLease, worktree: string, signal?: AbortSignal): Promise<SandboxStatus> {
  // Written to files and downloaded: a command's retained output is only its tail.
  const inside = posix.join(lease.home, ".outpost", "sync-back");
  const withManifest = lease.fileTransfers !== undefined;
  const listed = await lease.invoke({
    executable: "sh",
    arguments: ["-c", LIST_CHANGES, "outpost-changes", inside, lease.root, withManifest ? "manifest" : "", MANIFEST],
    directory: lease.root,
    signal,
    deadlineMs: 600_000,
  });
  if (listed.status !== 0)
    throw new OutpostError(
      "workspace",
      `Could not list the sandbox's uncommitted files (exit ${listed.status}): ${listed.stderr.trim().slice(-300)}.`,
    );
  const local = join(worktree, "..", `.outpost-status-${posix.basename(lease.root)}-${process.pid}`);
  try {
    await lease.download(inside, local, { signal });
    const records = await readFile(join(local, "status"), "utf8");
    const manifest = await readFile(join(local, "manifest"), "utf8").catch(() => undefined);
    return manifest === undefined ? { records } : { records, manifest: parseManifestOutput(manifest) };
  } finally {
    await rm(local, { recursive: true, force: true });
  }
}
