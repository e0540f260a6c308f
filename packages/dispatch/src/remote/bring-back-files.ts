import { lstatSync, mkdirSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
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
 * unmodified in the host worktree (else code `conflict`). It reads only the host, so it can run while the
 * files download.
 */
export async function assertChangedFilesMayLand(
  workspace: Workspace,
  paths: readonly string[],
  pending: PendingChanges | undefined,
  includeUncommitted: boolean,
): Promise<void> {
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
 * a directory, is refused (code `workspace`) before anything is written. Each place on the way is looked at
 * once (cached across paths), and the moves are synchronous renames: the sandbox is released, so nothing
 * else writes here meanwhile.
 */
export async function bringBackFiles(workspace: Workspace, changed: ChangedFiles): Promise<void> {
  const { directory } = workspace;
  try {
    const host = new HostPlaces(directory);
    for (const path of [...changed.entries.map((entry) => entry.path), ...changed.deleted]) host.assertPlainTarget(path);
    const made = new Set<string>();
    for (const entry of changed.entries) {
      const parent = dirname(join(directory, entry.path));
      if (!made.has(parent)) {
        mkdirSync(parent, { recursive: true });
        made.add(parent);
      }
      commitStagedFile(join(changed.staging, entry.path), join(directory, entry.path));
    }
    for (const path of changed.deleted) rmSync(join(directory, path), { force: true });
  } finally {
    await rm(changed.staging, { recursive: true, force: true });
  }
}

/** What stands at each place of the host worktree, looked up once (lstat, never following a link). */
class HostPlaces {
  private readonly kinds = new Map<string, "directory" | "missing" | "other">();

  constructor(private readonly directory: string) {}

  assertPlainTarget(path: string): void {
    const parts = path.split("/");
    let prefix = "";
    for (let index = 1; index < parts.length; index++) {
      prefix = index === 1 ? parts[0]! : `${prefix}/${parts[index - 1]}`;
      const kind = this.kindOf(prefix);
      if (kind === "missing") return;
      if (kind === "other") throw refused(path, `${JSON.stringify(prefix)} on the host is not a directory`);
    }
    if (this.kindOf(path) === "directory") throw refused(path, "it is a directory on the host");
  }

  private kindOf(path: string): "directory" | "missing" | "other" {
    let kind = this.kinds.get(path);
    if (kind === undefined) {
      const info = lstatSync(join(this.directory, path), { throwIfNoEntry: false });
      kind = info === undefined ? "missing" : info.isDirectory() ? "directory" : "other";
      this.kinds.set(path, kind);
    }
    return kind;
  }
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
