import { OutpostError, tailLines } from "@outpost/core";
import { gitStatus } from "../git/run-git.js";
import type { SandboxGitDirectory } from "../git/sandbox-git.js";
import type { Workspace } from "../workspace/workspace.js";
import type { RecoveryBackup } from "./recovery-backup.js";
import { VERIFIED_REFERENCE } from "./verify-work-bundle.js";
import { resetPending } from "./reset-pending.js";

/**
 * Applies verified remote work to the host: fetches it from the temporary repository into a temporary ref,
 * moves the branch by compare-and-swap from the baseline and carries the worktree's files along. A branch
 * that moved on the host, or worktree files the work would overwrite, leave everything as it was (the branch
 * moved back by compare-and-swap): code `conflict`, the backup's location in the details.
 */
export async function applyRemoteWork(
  workspace: Workspace,
  verified: { readonly repository: SandboxGitDirectory; readonly tip: string },
  backup: RecoveryBackup,
  dispatchId: string,
  /** Host paths the work supersedes (`includeUncommitted`): reset to the baseline before it applies. */
  superseded: readonly string[] = [],
): Promise<void> {
  const { root, directory, baseline } = workspace;
  const reference = `refs/heads/${workspace.branch!}`;
  const temporary = `refs/outpost/import/${dispatchId}`;
  // The one place the sandbox's objects are checked by fsck: git reads a bundle without checking them, so the
  // temporary repository holds them unchecked; this fetch unpacks them with every object checked before it
  // writes a ref of the host.
  const fetched = await gitStatus(root, [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--no-recurse-submodules",
    verified.repository.directory,
    `+${VERIFIED_REFERENCE}:${temporary}`,
  ]);
  if (fetched.status !== 0) {
    const why = tailLines(fetched.stderr, 300);
    // Objects fsck rejects are the sandbox's doing, refused like a bad bundle (the backup goes with them).
    if (/fsck|index-pack failed|unpack-objects/i.test(why))
      throw new OutpostError(
        "workspace",
        `The sandbox's work was refused before the host was touched: its objects fail git's checks (${why}). The host repository is unchanged.`,
        { details: { branch: workspace.branch, refused: true } },
      );
    throw new OutpostError(
      "workspace",
      `The sandbox's work could not be fetched into the host repository (${why}). The host branch is unchanged; the work is backed up in ${backup.location}.`,
      { details: { recoveryLocation: backup.location, restore: backup.restore, branch: workspace.branch } },
    );
  }
  let dropped: Promise<unknown> | undefined;
  try {
    let untouched = "The host is untouched";
    const conflict = (why: string): OutpostError =>
      new OutpostError(
        "conflict",
        `The sandbox's work was not applied: ${why}. ${untouched}; the work and the host's state are backed up in ${backup.location} (restore the work with \`${backup.restore}\`).`,
        { details: { recoveryLocation: backup.location, restore: backup.restore, branch: workspace.branch } },
      );
    // Compare-and-swap from the baseline: a branch that moved on the host during the run stays where it is.
    const moved = await gitStatus(root, [
      "update-ref",
      "-m",
      "outpost: commits from the remote sandbox",
      reference,
      verified.tip,
      baseline,
    ]);
    if (moved.status !== 0) {
      const current = (await gitStatus(root, ["rev-parse", "--verify", "--quiet", reference])).stdout.trim();
      throw conflict(`${workspace.branch!} moved on the host during the run (now ${current.slice(0, 12) || "deleted"})`);
    }
    // The branch holds the work now: the temporary ref can go while the files follow.
    dropped = gitStatus(root, ["update-ref", "-d", temporary]);
    // Undone by compare-and-swap too, when the files cannot follow: the branch goes back to the baseline.
    const rollBack = () => gitStatus(root, ["update-ref", "-m", "outpost: work not applied", reference, baseline, verified.tip]);
    try {
      await resetPending(workspace, superseded);
    } catch (error) {
      await rollBack();
      throw error;
    }
    if (superseded.length > 0)
      untouched = `Only the files the work supersedes were reset to the baseline (${superseded.slice(0, 5).join(", ")})`;
    // A two-way merge checks every path before it writes one: files the host changed that the work would
    // overwrite refuse it with the worktree as it was.
    const files = await gitStatus(directory, ["read-tree", "-m", "-u", baseline, verified.tip]);
    if (files.status !== 0) {
      await rollBack();
      throw conflict(`files of the host worktree changed and would be overwritten (${tailLines(files.stderr, 300)})`);
    }
  } finally {
    await (dropped ?? gitStatus(root, ["update-ref", "-d", temporary]));
  }
}
