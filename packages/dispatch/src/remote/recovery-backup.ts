import { createHash } from "node:crypto";
import { copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { git } from "../git/run-git.js";
import { outpostDirectory } from "../workspace/outpost-directory.js";
import type { Workspace } from "../workspace/workspace.js";

export interface RecoveryBackup {
  /** The directory holding the backup. */
  readonly location: string;
  /** The command that restores the sandbox's work as a branch of its own. */
  readonly restore: string;
}

/** Where a dispatch's recovery backup goes. */
export function recoveryLocation(workspace: Workspace, dispatchId: string): string {
  return join(outpostDirectory(workspace.root), "recovery", dispatchId);
}

/**
 * Before remote work is applied: backs up what it could affect under `.outpost/recovery/<dispatchId>`:
 * the verified bundle, the host worktree's uncommitted changes as a patch, its untracked (non-ignored)
 * files, and a SHA-256 manifest of all of them.
 */
export async function backUpBeforeApplying(workspace: Workspace, bundle: string, dispatchId: string): Promise<RecoveryBackup> {
  const location = recoveryLocation(workspace, dispatchId);
  await mkdir(join(location, "untracked"), { recursive: true });
  const files: string[] = ["work.bundle", "host.patch"];
  // Two reads of the host and the bundle's copy, independent of each other: side by side.
  const [patch, listed] = await Promise.all([
    git(workspace.directory, ["diff", "--binary", "--no-ext-diff", "--no-textconv", "HEAD"]),
    git(workspace.directory, ["ls-files", "-z", "--others", "--exclude-standard"]),
    copyFile(bundle, join(location, "work.bundle")),
  ]);
  await writeFile(join(location, "host.patch"), patch);
  const untracked = listed.split("\0").filter(Boolean);
  for (const path of untracked) {
    const target = join(location, "untracked", path);
    await mkdir(dirname(target), { recursive: true });
    await copyFile(join(workspace.directory, path), target);
    files.push(join("untracked", path));
  }
  const manifest = await Promise.all(
    files.map(async (path) => ({
      path,
      sha256: createHash("sha256")
        .update(await readFile(join(location, path)))
        .digest("hex"),
    })),
  );
  const fetch = (bundle: string) =>
    `git fetch ${bundle} refs/heads/${workspace.branch!}:refs/heads/outpost-recovered-${dispatchId.slice(0, 8)}`;
  const restore = fetch(join(location, "work.bundle"));
  // The same, from a copy archived to the recoveryTransport once it is extracted into a directory.
  const archiveRestore = fetch("<extracted>/work.bundle");
  await writeFile(
    join(location, "manifest.json"),
    `${JSON.stringify({ dispatchId, branch: workspace.branch, baseline: workspace.baseline, restore, archiveRestore, files: manifest }, null, 2)}\n`,
  );
  return { location, restore };
}
