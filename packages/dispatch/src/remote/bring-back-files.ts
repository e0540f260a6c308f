import { lstat, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { OutpostError } from "@outpost/core";
import { commitStagedFile } from "@outpost/plugin-utils";
import { git } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";
import type { ChangedFiles } from "./fetch-changed-files.js";
import { fingerprint, pendingTouched, type PendingChanges } from "./pending-changes.js";

/**
 * Before anything is applied: the sandbox's uncommitted files may land only where nothing of the host would
 * be lost. A path that was uncommitted on the host when the sandbox was seeded needs `includeUncommitted`
 * (else code `workspace`, as for commits) and must not have moved on the host since; any other path must be
 * unmodified in the host worktree (else code `conflict`).
 */
export async function assertChangedFilesMayLand(
  workspace: Workspace,
  changed: ChangedFiles,
  pending: PendingChanges | undefined,
  includeUncommitted: boolean,
): Promise<void> {
  const paths = [...changed.entries.map((entry) => entry.path), ...changed.deleted];
  const touched = new Set(pending ? pendingTouched(pending, paths) : []);
  if (touched.size > 0 && !includeUncommitted)
    throw new OutpostError(
      "workspace",
      `The sandbox's work was not applied: it left uncommitted changes to ${list([...touched])}, which were uncommitted or untracked ` +
        `in the worktree, so the sandbox never had them. The host is untouched. Commit those files first, or pass includeUncommitted: true.`,
      { details: { paths: [...touched] } },
    );
  const status = await git(workspace.directory, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]);
  const dirty = new Set(
    status
      .split("\0")
      .filter(Boolean)
      .map((record) => record.slice(3)),
  );
  const moved: string[] = [];
  for (const path of paths) {
    if (touched.has(path)) {
      if ((await fingerprint(workspace.directory, path)) !== pending!.files.get(path)) moved.push(path);
    } else if (dirty.has(path)) moved.push(path);
  }
  if (moved.length > 0)
    throw new OutpostError(
      "conflict",
      `The sandbox's work was not applied: ${list(moved)} changed in the host worktree during the run, and the sandbox left uncommitted changes to them too. The host is untouched.`,
      { details: { paths: moved } },
    );
}

/**
 * Writes the sandbox's uncommitted files into the host worktree and deletes what it deleted. Nothing is
 * written through a link: a path whose parent on the host is a link or not a directory, or whose target is
 * a directory, is refused (code `workspace`) before anything is written.
 */
export async function bringBackFiles(workspace: Workspace, changed: ChangedFiles): Promise<void> {
  const { directory } = workspace;
  try {
    for (const path of [...changed.entries.map((entry) => entry.path), ...changed.deleted]) await assertPlainTarget(directory, path);
    for (const entry of changed.entries) {
      await mkdir(dirname(join(directory, entry.path)), { recursive: true });
      await commitStagedFile(join(changed.staging, entry.path), entry, join(directory, entry.path));
    }
    for (const path of changed.deleted) await rm(join(directory, path), { force: true });
  } finally {
    await rm(changed.staging, { recursive: true, force: true });
  }
}

async function assertPlainTarget(directory: string, path: string): Promise<void> {
  const parts = path.split("/");
  for (let index = 1; index < parts.length; index++) {
    const info = await lstat(join(directory, ...parts.slice(0, index))).catch(() => undefined);
    if (info === undefined) return;
    if (!info.isDirectory()) throw refused(path, `${JSON.stringify(parts.slice(0, index).join("/"))} on the host is not a directory`);
  }
  if ((await lstat(join(directory, path)).catch(() => undefined))?.isDirectory()) throw refused(path, "it is a directory on the host");
}

function refused(path: string, problem: string): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused to write ${JSON.stringify(path)} from the sandbox into the worktree: ${problem}, and files ` +
      `are never written through links. The sandbox's commits are applied; its uncommitted files are not.`,
    { details: { path } },
  );
}

function list(paths: readonly string[]): string {
  const shown = paths.slice(0, 10).map((path) => JSON.stringify(path));
  return paths.length > 10 ? `${shown.join(", ")} and ${paths.length - 10} more` : shown.join(", ");
}
