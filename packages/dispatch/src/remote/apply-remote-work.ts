import { OutpostError } from "@outpost/core";
import { git, gitStatus } from "../git/run-git.js";
import type { SandboxGitDirectory } from "../git/sandbox-git.js";
import type { Workspace } from "../workspace/workspace.js";
import type { RecoveryBackup } from "./recovery-backup.js";
import { VERIFIED_REFERENCE } from "./verify-work-bundle.js";
import { resetPending } from "./reset-pending.js";

/**
 * Applies verified remote work to the host: fetches it from the temporary repository into a temporary ref,
 * checks that neither the work branch nor the worktree's files moved in a way the work would overwrite
 * (else code `conflict`, nothing applied, the backup's location in the details), then moves the branch by
 * compare-and-swap from the baseline and carries the worktree's files along.
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
  await git(root, [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--no-recurse-submodules",
    verified.repository.directory,
    `+${VERIFIED_REFERENCE}:${temporary}`,
  ]);
  try {
    let untouched = "The host is untouched";
    const conflict = (why: string): OutpostError =>
      new OutpostError(
        "conflict",
        `The sandbox's work was not applied: ${why}. ${untouched}; the work and the host's state are backed up in ${backup.location} (restore the work with \`${backup.restore}\`).`,
        { details: { recoveryLocation: backup.location, restore: backup.restore, branch: workspace.branch } },
      );
    const current = (await gitStatus(root, ["rev-parse", "--verify", "--quiet", reference])).stdout.trim();
    if (current !== baseline)
      throw conflict(`${workspace.branch!} moved on the host during the run (now ${current.slice(0, 12) || "deleted"})`);
    await resetPending(workspace, superseded);
    if (superseded.length > 0)
      untouched = `Only the files the work supersedes were reset to the baseline (${superseded.slice(0, 5).join(", ")})`;
    const dry = await gitStatus(directory, ["read-tree", "-n", "-m", "-u", baseline, verified.tip]);
    if (dry.status !== 0) throw conflict(`files of the host worktree changed and would be overwritten (${dry.stderr.trim().slice(-300)})`);
    const moved = await gitStatus(root, [
      "update-ref",
      "-m",
      "outpost: commits from the remote sandbox",
      reference,
      verified.tip,
      baseline,
    ]);
    if (moved.status !== 0) throw conflict(`${workspace.branch!} moved on the host while the work was applied`);
    await git(directory, ["read-tree", "-m", "-u", baseline, verified.tip]);
  } finally {
    await gitStatus(root, ["update-ref", "-d", temporary]);
  }
}
