import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxLease } from "@outpost/core";
import type { ActivityRecord } from "../activity/activity-record.js";
import { DEFAULT_BUNDLE_BYTES, DEFAULT_SYNC_BACK_BYTES, DEFAULT_SYNC_BACK_FILES } from "../options/stage-limits.js";
import { collectSandboxWork } from "../remote/sandbox-work.js";
import { verifyWorkBundle } from "../remote/verify-work-bundle.js";
import { backUpBeforeApplying } from "../remote/recovery-backup.js";
import { applyRemoteWork } from "../remote/apply-remote-work.js";
import { fetchChangedFiles, listChangedPaths } from "../remote/fetch-changed-files.js";
import { assertChangedFilesMayLand, bringBackFiles } from "../remote/bring-back-files.js";
import { git, gitStatus } from "../git/run-git.js";
import { recordWorkspace } from "./record-workspace.js";

/** How long bringing a dead dispatch's work back may take. */
const BRING_BACK_MS = 300_000;

export interface BroughtBack {
  /** The commits now on the dispatch's branch. */
  readonly commits: number;
  /** Uncommitted files written into its worktree (and deleted there). */
  readonly files: number;
}

/**
 * Brings a dead dispatch's work home from its reopened sandbox, as its sync back would have: the commits since
 * the baseline are bundled there, verified on the host and moved onto the dispatch's branch by compare-and-swap
 * (a backup under `.outpost/recovery` while it happens), then what it left uncommitted lands in the worktree
 * when nothing of the host is overwritten. Everything the sandbox sends is checked as in a sync back; any
 * failure throws, and the caller keeps the sandbox.
 */
export async function bringBackSandboxWork(root: string, record: ActivityRecord, lease: SandboxLease): Promise<BroughtBack> {
  const workspace = await recordWorkspace(root, record);
  const budget = { bytes: DEFAULT_SYNC_BACK_BYTES, files: DEFAULT_SYNC_BACK_FILES };
  const signal = AbortSignal.timeout(BRING_BACK_MS);
  const staging = await mkdtemp(join(tmpdir(), "outpost-staging-"));
  try {
    const { bundle, status } = await collectSandboxWork(workspace, lease, staging, DEFAULT_BUNDLE_BYTES, signal, budget);
    let commits = 0;
    if (bundle) {
      const verified = await verifyWorkBundle(workspace, bundle, budget);
      try {
        // Killed after its sync back applied them, the branch already holds the sandbox's commits.
        if (!(await alreadyHome(root, workspace.branch!, verified.tip))) {
          const backup = await backUpBeforeApplying(workspace, bundle, record.dispatchId);
          // A branch that moved meanwhile is a conflict: the work stays in the backup (and the sandbox), nothing moves.
          await applyRemoteWork(workspace, verified, backup, record.dispatchId);
          await rm(backup.location, { recursive: true, force: true });
          commits = Number((await git(root, ["rev-list", "--count", verified.tip, `^${workspace.baseline}`])).trim());
        }
      } finally {
        await verified.repository.dispose();
      }
    }
    const listed = listChangedPaths(status);
    const paths = [...listed.changed, ...listed.deleted];
    if (paths.length === 0) return { commits, files: 0 };
    await assertChangedFilesMayLand(workspace, paths, undefined, false);
    const changed = await fetchChangedFiles(lease, workspace.directory, listed, signal, budget);
    if (changed) await bringBackFiles(workspace, changed);
    return { commits, files: paths.length };
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Whether `tip` is on the host branch already (the merge-base check reads the host's objects only). */
async function alreadyHome(root: string, branch: string, tip: string): Promise<boolean> {
  const found = await gitStatus(root, ["merge-base", "--is-ancestor", tip, `refs/heads/${branch}`]);
  return found.status === 0;
}
