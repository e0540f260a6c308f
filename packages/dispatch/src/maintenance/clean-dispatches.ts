import { lstat, rm } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import type { ActivityRecord } from "../activity/activity-record.js";
import { activityFile } from "../activity/activity-log.js";
import { findDispatchProcesses, stopDispatchProcesses } from "../activity/dispatch-processes.js";
import { findRepository, branchExists } from "../git/repository.js";
import { gitStatus } from "../git/run-git.js";
import { importSandboxCommits } from "../git/import-sandbox-commits.js";
import { withFileLock } from "../workspace/file-lock.js";
import { lockPath, outpostDirectory } from "../workspace/outpost-directory.js";
import { dispatchStatus, type DispatchStatus } from "./dispatch-status.js";
import { keptCommits } from "./kept-commits.js";
import { readActivityRecords } from "./read-activity.js";
import { bringBack } from "./bring-back.js";
import { recordWorkspace } from "./record-workspace.js";
import { rewriteRecord } from "./rewrite-record.js";
import { sandboxMayHoldWork, type SandboxReopener } from "./sandbox-reopener.js";

export interface CleanDispatchesOptions {
  /** Path inside the checkout; default the process's cwd. */
  readonly repository?: string;
  /** Only these dispatches (ids or unique prefixes); default every dead or ended one. */
  readonly ids?: readonly string[];
  /** Say what would be done, do nothing. */
  readonly dryRun?: boolean;
  /**
   * Also drop work a clean would keep (a worktree with uncommitted changes, a branch with unmerged commits,
   * commits that could not be imported from a sandbox): for work the user does not want. Ask them first.
   */
  readonly discard?: boolean;
  /** Removes a sandbox by the id its lease recorded; `provider` is the name the record holds (the CLI asks that provider's descriptor). */
  readonly removeContainer?: (id: string, provider: string) => Promise<void>;
  /**
   * Leases again a dead dispatch's isolated or cloud sandbox, so the commits still in it come back before it is
   * removed. Without it (or when it cannot), such a sandbox is left in place and listed as kept work.
   */
  readonly reopenSandbox?: SandboxReopener;
}

/** Work a clean left in place, and how to get it back. */
export interface KeptWork {
  readonly branch?: string;
  readonly directory?: string;
  readonly commits: readonly string[];
  readonly reason: string;
  /** A sandbox left in place because it may still hold the dispatch's commits. */
  readonly sandbox?: string;
  /** `outpost recover <id>`. */
  readonly recover: string;
}

export interface CleanedDispatch {
  readonly dispatchId: string;
  readonly status: DispatchStatus;
  /** What was done (or, in a dry run, would be). */
  readonly actions: readonly string[];
  readonly kept?: KeptWork;
}

export interface CleanReport {
  readonly cleaned: readonly CleanedDispatch[];
  /** Dispatches left alone (live, or not judged from here), with why. */
  readonly skipped: ReadonlyArray<{ readonly dispatchId: string; readonly status: DispatchStatus; readonly reason: string }>;
}

/**
 * For dispatches whose runner is gone or that ended: stops their orphaned agents and containers,
 * removes their temporary directories, removes worktrees and branches they created that hold nothing
 * unmerged, and drops their records; work that would be lost is kept and listed with the command that
 * recovers it. A live dispatch is never touched.
 */
export async function cleanDispatches(options: CleanDispatchesOptions = {}): Promise<CleanReport> {
  const { root } = await findRepository(options.repository ?? process.cwd());
  const records = selectRecords(await readActivityRecords(root), options.ids);
  const cleaned: CleanedDispatch[] = [];
  const skipped: Array<{ dispatchId: string; status: DispatchStatus; reason: string }> = [];
  for (const record of records) {
    const status = dispatchStatus(record);
    if (status === "running" || status === "unknown") {
      skipped.push({
        dispatchId: record.dispatchId,
        status,
        reason: status === "running" ? "it is running" : "its runner cannot be checked from here (another machine or container)",
      });
      continue;
    }
    cleaned.push(await cleanOne(root, record, status, options));
  }
  return { cleaned, skipped };
}

/** Records matching `ids` (full ids or unique prefixes), or all; an unknown id is code `configuration`. */
export function selectRecords(records: readonly ActivityRecord[], ids: readonly string[] | undefined): ActivityRecord[] {
  if (!ids || ids.length === 0) return [...records];
  return ids.map((id) => {
    const matches = records.filter((record) => record.dispatchId === id || (id.length >= 4 && record.dispatchId.startsWith(id)));
    if (matches.length !== 1) {
      throw new OutpostError(
        "configuration",
        `${matches.length === 0 ? "No" : "More than one"} dispatch with id ${JSON.stringify(id)} on this repository. Run \`outpost ps\` to see the ids.`,
        { details: { id } },
      );
    }
    return matches[0]!;
  });
}

async function cleanOne(
  root: string,
  found: ActivityRecord,
  status: DispatchStatus,
  options: CleanDispatchesOptions,
): Promise<CleanedDispatch> {
  const dry = options.dryRun === true;
  let record = found;
  const actions: string[] = [];
  const act = async (description: string, work: () => Promise<unknown>): Promise<void> => {
    actions.push(description);
    if (!dry) await work();
  };
  const orphans = await findDispatchProcesses(record.dispatchId);
  if (orphans.length > 0)
    await act(`stop ${orphans.length} orphaned agent process(es) ${orphans.map((entry) => entry.pid).join(", ")}`, () =>
      stopDispatchProcesses(record.dispatchId),
    );
  const sandbox = record.sandbox ?? record.container;
  const discard = options.discard === true;
  let sandboxLeft: string | undefined;
  let sandboxRemoved = false;
  if (sandbox) {
    const name = `${record.provider} sandbox ${sandbox.slice(0, 12)}`;
    const holdsWork = sandboxMayHoldWork(record);
    if (holdsWork && discard && options.removeContainer)
      await act(`discard the work still in ${name} and remove it`, () => options.removeContainer!(sandbox, record.provider));
    else if (holdsWork && !discard) {
      // Its commits exist nowhere else: they come back before the sandbox may go.
      if (dry) actions.push(`bring back the work still in ${name}`);
      else {
        const outcome = await bringBack(root, record, sandbox, options.reopenSandbox);
        if (outcome.left !== undefined) sandboxLeft = outcome.left;
        else {
          actions.push(outcome.action);
          record = outcome.record;
        }
      }
    }
    if (!sandboxLeft && !(holdsWork && discard && options.removeContainer)) {
      if (options.removeContainer) await act(`remove ${name}`, () => options.removeContainer!(sandbox, record.provider));
      else actions.push(`${name} not removed (no sandbox remover given for provider ${record.provider})`);
    }
    sandboxRemoved = !sandboxLeft && options.removeContainer !== undefined;
  }
  for (const directory of [record.staging, record.home]) {
    if (directory && (await ownDirectory(directory)))
      await act(`remove ${directory}`, () => rm(directory, { recursive: true, force: true }));
  }
  let importFailure: string | undefined;
  if (record.sandboxGit && (await ownDirectory(record.sandboxGit))) {
    const sandboxGit = record.sandboxGit;
    // The agent's commits in a mounted sandbox live in its private git directory until imported.
    await act(`import the sandbox's commits from ${sandboxGit}`, async () => {
      try {
        await importCommits(root, record, sandboxGit);
        await rm(sandboxGit, { recursive: true, force: true });
      } catch (error) {
        importFailure = error instanceof Error ? error.message : String(error);
      }
    });
  }
  const reservation = join(outpostDirectory(root), "reservations", `${record.dispatchId}.json`);
  if (await lstat(reservation).catch(() => undefined)) await act(`remove its storage reservation`, () => rm(reservation, { force: true }));

  const commits = await keptCommits(record);
  let kept: KeptWork | undefined;
  if (sandboxLeft)
    kept = {
      ...(record.branch ? { branch: record.branch } : {}),
      sandbox: sandbox!,
      commits,
      reason: sandboxLeft,
      recover: `outpost recover ${record.dispatchId}`,
    };
  else if (importFailure && discard)
    await act(`discard the sandbox's commits in ${record.sandboxGit!} (they could not be imported)`, () =>
      rm(record.sandboxGit!, { recursive: true, force: true }),
    );
  else if (importFailure)
    kept = {
      ...(record.branch ? { branch: record.branch } : {}),
      directory: record.sandboxGit!,
      commits,
      reason: `the sandbox's commits could not be imported: ${importFailure}`,
      recover: `outpost recover ${record.dispatchId}`,
    };
  const keptWork = (reason: string, directory?: string): KeptWork => ({
    ...(record.branch ? { branch: record.branch } : {}),
    ...(directory ? { directory } : {}),
    commits,
    reason,
    recover: `outpost recover ${record.dispatchId}`,
  });
  if ((!kept || sandboxLeft) && record.worktreeCreated && (await lstat(record.directory).catch(() => undefined))) {
    const dirty = (await gitStatus(record.directory, ["status", "--porcelain", "--ignored=no"])).stdout.trim() !== "";
    // Killed while the worktree was being made (or its copies and hooks ran): the agent never worked there, and
    // it may be half checked out; it goes, as the dispatch itself would have removed it.
    if (record.phase === "workspace")
      await act(`remove worktree ${record.directory} (made before the agent ran)`, () =>
        removeWorktree(root, record.directory, true, true),
      );
    else if (dirty && discard)
      await act(`discard worktree ${record.directory} and its uncommitted changes`, () => removeWorktree(root, record.directory, true));
    else if (dirty) kept ??= keptWork("its worktree has uncommitted changes", record.directory);
    else if (!sandboxLeft) await act(`remove worktree ${record.directory}`, () => removeWorktree(root, record.directory));
  }
  if (record.branchCreated && record.branch && (await branchExists(root, record.branch))) {
    if (commits.length > 0 && discard && !kept)
      await act(`discard branch ${record.branch} and its ${commits.length} unmerged commit(s)`, () =>
        gitStatus(root, ["branch", "-D", "--", record.branch!]),
      );
    else if (commits.length > 0)
      kept ??= {
        branch: record.branch,
        commits,
        reason: `branch ${record.branch} holds ${commits.length} unmerged commit(s)`,
        recover: `outpost recover ${record.dispatchId}`,
      };
    else if (!kept)
      await act(`delete branch ${record.branch} (nothing unmerged)`, () => gitStatus(root, ["branch", "-D", "--", record.branch!]));
  }
  if (kept) {
    // The record stays so `outpost recover` can find the work; it now says the dispatch ended and no longer
    // names what this clean removed, so the next clean has nothing more to do.
    const settled = settledRecord(record, sandboxRemoved, sandboxLeft !== undefined);
    if (!dry && JSON.stringify(settled) !== JSON.stringify(record)) await rewriteRecord(root, settled);
  } else {
    await act("remove the activity record", () => rm(activityFile(root, record.dispatchId), { force: true }));
  }
  return { dispatchId: record.dispatchId, status, actions, ...(kept ? { kept } : {}) };
}

async function importCommits(root: string, record: ActivityRecord, directory: string): Promise<void> {
  const workspace = await recordWorkspace(root, record);
  const reference = record.branch ? `refs/heads/${record.branch}` : "HEAD";
  await importSandboxCommits(workspace, { directory, objects: [], reference, dispose: async () => undefined }, record.dispatchId);
}

async function removeWorktree(root: string, directory: string, discard = false, unfinished = false): Promise<void> {
  await withFileLock(lockPath(root, "worktrees"), async () => {
    // Without --force git refuses a worktree with changes: nothing is lost even if one appeared meanwhile.
    const removed = await gitStatus(root, [
      "worktree",
      "remove",
      ...(discard ? ["--force"] : []),
      ...(unfinished ? ["--force"] : []),
      directory,
    ]);
    // One whose `git worktree add` was killed may not be registered yet: its folder (in .outpost/workspaces) goes.
    if (removed.status !== 0 && unfinished) await rm(directory, { recursive: true, force: true });
    await gitStatus(root, ["worktree", "prune"]);
    if (removed.status !== 0 && (await lstat(directory).catch(() => undefined))) {
      throw new OutpostError(
        "workspace",
        `Could not remove the worktree ${directory}: ${removed.stderr.trim()}. Look at it, then \`git worktree remove\` it yourself.`,
        { details: { directory } },
      );
    }
  });
}

/** A directory (not a link) that belongs to this user: what a dispatch's temporary directories are. */
async function ownDirectory(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return info !== undefined && info.isDirectory() && info.uid === process.getuid?.();
}

/**
 * The record of kept work after a clean: ended, without the folders and processes the clean removed or stopped,
 * and without the sandbox once a remover removed it (a remover's failure fails the clean before this); a sandbox
 * left because its work could not be brought back keeps the record a dead run's.
 */
function settledRecord(record: ActivityRecord, sandboxRemoved: boolean, sandboxLeft: boolean): ActivityRecord {
  // A sandbox left with work in it stays a dead run's, so the next clean or recover tries to bring it back again.
  const ended: ActivityRecord =
    record.state === "running" && !sandboxLeft
      ? { ...record, state: "failed", error: { code: "process", message: "its runner died before the dispatch ended" } }
      : record;
  const { staging: _staging, home: _home, agentProcessGroup: _group, ...rest } = ended;
  if (!sandboxRemoved) return rest;
  const { sandbox: _sandbox, container: _container, ...left } = rest;
  return left;
}
