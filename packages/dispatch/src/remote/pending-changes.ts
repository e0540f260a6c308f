import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join, relative } from "node:path";
import { git } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { ignoredByCommittedRules } from "./committed-ignores.js";

/**
 * What of the managed worktree is not in the baseline commit when a remote sandbox is seeded: every
 * uncommitted change and untracked, non-ignored file (with a fingerprint of its content, or null when
 * deleted), and the `copies` entries no committed `.gitignore` ignores. The sandbox's work may not touch
 * these without `includeUncommitted`; with it, they are sent and must not move on the host meanwhile.
 */
export interface PendingChanges {
  readonly files: ReadonlyMap<string, string | null>;
  /** Copies entries (files or directories) not ignored by a committed .gitignore. */
  readonly copies: readonly string[];
}

export async function pendingChanges(workspace: Workspace, copies: readonly string[], signal?: AbortSignal): Promise<PendingChanges> {
  const status = await git(workspace.directory, ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"], { signal });
  const files = new Map<string, string | null>();
  for (const record of status.split("\0").filter(Boolean)) {
    const path = record.slice(3);
    files.set(path, await fingerprint(workspace.directory, path));
  }
  const present = copies.filter((entry) => entry !== "");
  const ignored = new Set(await ignoredByCommittedRules(workspace, present, signal));
  const pendingCopies = present.filter((entry) => !ignored.has(entry));
  // Ignored on this host only, such copies are still files the sandbox does not have: they count (and travel) too.
  for (const entry of pendingCopies)
    for (const path of await filesUnder(workspace.directory, entry)) files.set(path, await fingerprint(workspace.directory, path));
  return { files, copies: pendingCopies };
}

/** The entry itself when it is not a directory, else the paths of everything below it that is not one. */
async function filesUnder(directory: string, entry: string): Promise<string[]> {
  const info = await lstat(join(directory, entry)).catch(() => undefined);
  if (!info) return [];
  if (!info.isDirectory()) return [entry];
  const below = await readdir(join(directory, entry), { recursive: true, withFileTypes: true });
  return below.filter((item) => !item.isDirectory()).map((item) => relative(directory, join(item.parentPath, item.name)));
}

/** The content and kind of a worktree path, or null when it is absent. */
export async function fingerprint(directory: string, path: string): Promise<string | null> {
  const full = join(directory, path);
  const info = await lstat(full).catch(() => undefined);
  if (!info) return null;
  const hash = createHash("sha256");
  if (info.isSymbolicLink()) hash.update(`link\0${await readlink(full)}`);
  else if (info.isFile()) hash.update(`file ${info.mode & 0o111 ? "x" : "-"}\0`).update(await readFile(full));
  else hash.update(`other ${info.mode}`);
  return hash.digest("hex");
}

/** The paths of `changed` that are pending: a pending file itself, or under a pending copies entry. */
export function pendingTouched(pending: PendingChanges, changed: readonly string[]): string[] {
  return changed.filter(
    (path) => pending.files.has(path) || pending.copies.some((entry) => path === entry || path.startsWith(`${entry}/`)),
  );
}
