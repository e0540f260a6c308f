import { OutpostError } from "@outpost/core";
import { git } from "../git/run-git.js";
import type { SandboxGitDirectory } from "../git/sandbox-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { fingerprint, pendingTouched, type PendingChanges } from "./pending-changes.js";
import type { RecoveryBackup } from "./recovery-backup.js";

/**
 * Decides, before anything is applied, what the verified work may do to what was uncommitted when the
 * sandbox was seeded. Without `includeUncommitted` the sandbox never had those files, so work touching
 * them fails with code `workspace`. With it, the work supersedes them (returned, to reset before applying)
 * unless they changed on the host meanwhile (code `conflict`). Either way the backup keeps everything.
 */
export async function checkPending(
  workspace: Workspace,
  verified: { readonly repository: SandboxGitDirectory; readonly tip: string },
  pending: PendingChanges,
  includeUncommitted: boolean,
  backup: RecoveryBackup,
): Promise<string[]> {
  if (pending.files.size === 0 && pending.copies.length === 0) return [];
  const changed = (
    await git(verified.repository.directory, ["diff", "--name-only", "-z", "--no-renames", workspace.baseline, verified.tip])
  )
    .split("\0")
    .filter(Boolean);
  const touched = pendingTouched(pending, changed);
  if (touched.length === 0) return [];
  const details = { recoveryLocation: backup.location, restore: backup.restore, paths: touched };
  if (!includeUncommitted)
    throw new OutpostError(
      "workspace",
      `The sandbox's work was not applied: it changes ${list(touched)}, ` +
        `which were uncommitted or untracked in the worktree (or copies no committed .gitignore ignores), so the sandbox never had them. ` +
        `The host is untouched; the work is backed up in ${backup.location} (restore it with \`${backup.restore}\`). ` +
        `Commit those files first, ignore them in a committed .gitignore, or pass includeUncommitted: true.`,
      { details },
    );
  // Sent files the work changes supersede the host's versions; anything else it would overwrite is a conflict at apply time.
  const superseded = touched.filter((path) => pending.files.has(path));
  const moved: string[] = [];
  for (const path of superseded) if ((await fingerprint(workspace.directory, path)) !== pending.files.get(path)) moved.push(path);
  if (moved.length > 0)
    throw new OutpostError(
      "conflict",
      `The sandbox's work was not applied: ${list(moved)} changed on the host during the run, and the work changes them too. ` +
        `The host is untouched; the work and the host's state are backed up in ${backup.location} (restore the work with \`${backup.restore}\`).`,
      { details },
    );
  return superseded;
}

function list(paths: readonly string[]): string {
  const shown = paths.slice(0, 10).map((path) => JSON.stringify(path));
  return paths.length > 10 ? `${shown.join(", ")} and ${paths.length - 10} more` : shown.join(", ");
}
