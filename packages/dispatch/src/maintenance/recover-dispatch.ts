import { lstat, rm } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import { activityFile } from "../activity/activity-log.js";
import { branchExists, findRepository } from "../git/repository.js";
import { gitStatus } from "../git/run-git.js";
import { resolveIdentity } from "../git/git-identity.js";
import { integrateBranch } from "../workspace/integrate-branch.js";
import { withFileLock } from "../workspace/file-lock.js";
import { lockPath } from "../workspace/outpost-directory.js";
import { cleanDispatches, selectRecords } from "./clean-dispatches.js";
import { dispatchStatus } from "./dispatch-status.js";
import { keptCommits } from "./kept-commits.js";
import { readActivityRecords } from "./read-activity.js";
import type { SandboxReopener } from "./sandbox-reopener.js";

export interface RecoverDispatchOptions {
  readonly repository?: string;
  /** The dispatch id (or a unique prefix), as `outpost ps` shows it. */
  readonly id: string;
  readonly removeContainer?: (id: string, provider: string) => Promise<void>;
  /** Leases a dead run's isolated or cloud sandbox again, so its commits come back first (see cleanDispatches). */
  readonly reopenSandbox?: SandboxReopener;
  readonly signal?: AbortSignal;
}

export interface RecoveredDispatch {
  readonly dispatchId: string;
  readonly branch?: string;
  /** Integrate: the branch the work was merged into. */
  readonly target?: string;
  readonly integration?: "fast-forward" | "merge" | "up-to-date";
  /** Named: where the branch is checked out. */
  readonly directory?: string;
  readonly commits: readonly string[];
}

/**
 * Brings back the work of a dead or ended dispatch: an integrate dispatch's branch is merged into its
 * target (as the dispatch would have done), a named branch is checked out in its worktree again. Its
 * orphans and temporary directories are cleaned first; its record goes once the work is back.
 */
export async function recoverDispatch(options: RecoverDispatchOptions): Promise<RecoveredDispatch> {
  const repository = await findRepository(options.repository ?? process.cwd());
  const root = repository.root;
  const [record] = selectRecords(await readActivityRecords(root), [options.id]);
  const status = dispatchStatus(record!);
  if (status === "running" || status === "unknown") {
    throw new OutpostError(
      "conflict",
      `Dispatch ${record!.dispatchId} is ${status === "running" ? "still running" : "run from elsewhere"}; recover it once it has ended (\`outpost ps\`).`,
      { details: { dispatchId: record!.dispatchId } },
    );
  }
  // Orphans, containers and temporary directories go first (a clean worktree too); the work itself stays.
  const remover = {
    ...(options.removeContainer ? { removeContainer: options.removeContainer } : {}),
    ...(options.reopenSandbox ? { reopenSandbox: options.reopenSandbox } : {}),
  };
  const [first] = (await cleanDispatches({ repository: root, ids: [record!.dispatchId], ...remover })).cleaned;
  // Work still in a sandbox is not recovered by merging what is on the branch: nothing moves until it is home.
  if (first?.kept?.sandbox)
    throw new OutpostError("provider", `Dispatch ${record!.dispatchId} was not recovered: ${first.kept.reason}.`, {
      details: { dispatchId: record!.dispatchId, sandbox: first.kept.sandbox },
    });
  const commits = await keptCommits(record!);
  const { branch, target } = record!;
  if (record!.mode === "integrate" && branch && target && (await branchExists(root, branch))) {
    const workspace = {
      mode: "integrate" as const,
      root,
      commonDirectory: repository.commonDirectory,
      gitDirectory: repository.gitDirectory,
      directory: record!.directory,
      branch,
      target,
      baseline: record!.baseline ?? "",
      created: record!.worktreeCreated === true,
      branchCreated: true,
      untrackedCopies: [],
    };
    const integration = await integrateBranch(workspace, await resolveIdentity(root), options.signal);
    // Merged: the branch holds nothing unmerged any more, so the same clean removes it and the record.
    const again = await readActivityRecords(root);
    if (again.some((entry) => entry.dispatchId === record!.dispatchId))
      await cleanDispatches({ repository: root, ids: [record!.dispatchId], ...remover });
    return { dispatchId: record!.dispatchId, branch, target, integration: integration.kind, commits };
  }
  let directory: string | undefined;
  if (record!.mode === "named" && branch && (await branchExists(root, branch))) {
    directory = record!.directory;
    if (!(await lstat(directory).catch(() => undefined))) {
      await withFileLock(lockPath(root, "worktrees"), async () => {
        await gitStatus(root, ["worktree", "prune"]);
        const added = await gitStatus(root, ["worktree", "add", "--quiet", directory!, branch]);
        if (added.status !== 0)
          throw new OutpostError(
            "workspace",
            `Could not check out ${branch} in ${directory}: ${added.stderr.trim()}. Check \`git worktree list\`.`,
            { details: { branch, directory } },
          );
      });
    }
  }
  await rm(activityFile(root, record!.dispatchId), { force: true });
  return { dispatchId: record!.dispatchId, ...(branch ? { branch } : {}), ...(directory ? { directory } : {}), commits };
}
