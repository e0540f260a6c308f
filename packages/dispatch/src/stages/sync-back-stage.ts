import { rm } from "node:fs/promises";
import { basename, sep } from "node:path";
import { isOutpostError, OutpostError } from "@outpost/core";
import { collectSandboxWork } from "../remote/sandbox-work.js";
import { verifyWorkBundle } from "../remote/verify-work-bundle.js";
import { backUpBeforeApplying, recoveryLocation, type RecoveryBackup } from "../remote/recovery-backup.js";
import { archiveRecovery } from "../remote/archive-recovery.js";
import { applyRemoteWork } from "../remote/apply-remote-work.js";
import { checkPending } from "../remote/check-pending.js";
import { fetchChangedFiles, listChangedPaths } from "../remote/fetch-changed-files.js";
import { assertChangedFilesMayLand, bringBackFiles } from "../remote/bring-back-files.js";
import { stripSpecialBits } from "../workspace/strip-special-bits.js";
import { outpostDirectory } from "../workspace/outpost-directory.js";
import type { SyncBackBudget } from "../remote/sync-back-budget.js";
import { withinLimit } from "./stage-limit.js";
import { sandboxOf, workspaceOf, type DispatchState, type HeldSandbox } from "./dispatch-state.js";

/**
 * Stage `syncBack`: brings the agent's work home and ends the sandbox. The lease is released first, so
 * nothing in the sandbox can write while its commits are imported and the git control files are checked.
 */
export async function syncBackStage(state: DispatchState): Promise<void> {
  const sandbox = sandboxOf(state);
  if (state.options.sandboxProvider.placement === "remote") return syncBackRemote(state, sandbox);
  state.cleanupFailed = true;
  // Released once: a release that fails is not retried by the failure path, and is left for `outpost clean`.
  state.sandbox = undefined;
  await sandbox.lease.release();
  await closeBoundary(state, sandbox);
  state.cleanupFailed = false;
}

/**
 * The sandbox wrote the host worktree itself: no setuid or setgid bit it set stays there. Host cleanup after
 * the sandbox ended, so it also runs for an aborted dispatch (no signal; `find` has its own deadline).
 */
async function stripWorktree(state: DispatchState): Promise<void> {
  const stripped = await stripSpecialBits(workspaceOf(state).directory);
  if (stripped.length > 0)
    state.observers.warn(
      `The agent left setuid or setgid bits in the worktree; they were removed (git keeps no such bit): ${stripped.slice(0, 20).join(", ")}` +
        `${stripped.length > 20 ? ` and ${stripped.length - 20} more` : ""}.`,
    );
}

/**
 * Restores changed git control files (with a warning) and imports the sandbox's commits; where the sandbox
 * wrote the host worktree itself, removes the setuid and setgid bits it left there.
 */
export async function closeBoundary(state: DispatchState, sandbox: HeldSandbox): Promise<void> {
  // The commits are imported first: nothing after this may lose the work.
  const { restored } = await sandbox.boundary.close(state.dispatchId);
  // Under .outpost, only the kept worktrees' `.git` files are git's; the rest are the host-read files (and
  // any link planted on the way to them).
  const outpost = outpostDirectory(workspaceOf(state).root);
  const ours = (path: string): boolean => (path === outpost || path.startsWith(`${outpost}${sep}`)) && basename(path) !== ".git";
  const [own, git] = [restored.filter(ours), restored.filter((path) => !ours(path))];
  if (git.length > 0)
    state.observers.warn(
      `The agent changed git control files of the repository; each was restored as it was before the turn: ${git.join(", ")}.`,
    );
  if (own.length > 0)
    state.observers.warn(
      `The agent changed files under .outpost/ that Outpost reads on the host (run defaults, agent variables); each was put back as it was before the turn: ${own.join(", ")}.`,
    );
  if (state.options.sandboxProvider.placement !== "remote") await stripWorktree(state);
}

/**
 * Remote placement: the agent's commits come back as a bundle made in the sandbox; once it (and the changed
 * files) are on the host the sandbox is released, and meanwhile the bundle is verified in a temporary
 * repository, backed up, and applied.
 */
async function syncBackRemote(state: DispatchState, sandbox: HeldSandbox): Promise<void> {
  const workspace = workspaceOf(state);
  const { limits } = state.resolved;
  const budget = { bytes: limits.syncBackBytes, files: limits.syncBackFiles };
  const { bundle, status } = await withinLimit(state, "gitMs", (signal) =>
    collectSandboxWork(workspace, sandbox.lease, state.staging, limits.bundleBytes, signal, budget),
  );
  const listed = listChangedPaths(status);
  const paths = [...listed.changed, ...listed.deleted];
  // Whether the files may land reads only the host worktree, so it is checked while they download.
  const [fetching, checking] = await Promise.allSettled([
    withinLimit(state, "copyMs", (signal) => fetchChangedFiles(sandbox.lease, workspace.directory, listed, signal, budget)),
    paths.length === 0 ? undefined : assertChangedFilesMayLand(workspace, paths, state.pending, state.options.includeUncommitted === true),
  ]);
  if (fetching.status === "rejected") throw fetching.reason;
  const changed = fetching.value;
  // Released from now on, in parallel with the host's work: the sandbox can no longer reach anything read below.
  state.sandbox = undefined;
  const releasing = sandbox.lease.release();
  releasing.catch(() => undefined);
  state.releasing = releasing;
  try {
    if (checking.status === "rejected") throw checking.reason;
    if (bundle) await applyBundle(state, bundle, budget);
    if (changed) {
      await bringBackFiles(workspace, changed);
      state.observers.diagnostic(
        `syncBack: ${changed.entries.length} uncommitted files brought back, ${changed.deleted.length} deleted (${changed.via})`,
      );
    }
  } finally {
    if (changed) await rm(changed.staging, { recursive: true, force: true });
  }
}

/** Verifies the sandbox's bundle in a temporary repository, backs the host up (and archives it), then applies the commits. */
async function applyBundle(state: DispatchState, bundle: string, budget: SyncBackBudget): Promise<void> {
  const workspace = workspaceOf(state);
  // Independent of each other, so side by side; a refused bundle takes its backup with it.
  const [verifying, backingUp] = await Promise.allSettled([
    verifyWorkBundle(workspace, bundle, budget),
    backUpBeforeApplying(workspace, bundle, state.dispatchId),
  ]);
  if (verifying.status === "rejected") {
    // Over the budget is not forged: the backup (the compressed bundle) stays, for the user to restore on purpose.
    if (isOutpostError(verifying.reason, "limit") && backingUp.status === "fulfilled")
      throw keptOverBudget(verifying.reason, backingUp.value);
    await rm(recoveryLocation(workspace, state.dispatchId), { recursive: true, force: true });
    throw verifying.reason;
  }
  const verified = verifying.value;
  try {
    if (backingUp.status === "rejected") throw backingUp.reason;
    const backup = backingUp.value;
    const transport = state.options.recoveryTransport;
    if (transport) {
      const archived = await archiveRecovery(backup, transport, state.dispatchId, state.options.signal);
      state.observers.diagnostic(`syncBack: recovery backup archived to ${transport.name} as ${archived.key}`);
    }
    const superseded = state.pending
      ? await checkPending(workspace, verified, state.pending, state.options.includeUncommitted === true, backup)
      : [];
    try {
      await applyRemoteWork(workspace, verified, backup, state.dispatchId, superseded);
    } catch (error) {
      // Refused as the sandbox's forgery, the backup goes with it, as with any refused bundle.
      if (error instanceof OutpostError && error.details?.refused === true) await rm(backup.location, { recursive: true, force: true });
      throw error;
    }
    // Applied: the work is on the branch now, so the backup has served its purpose.
    await rm(backup.location, { recursive: true, force: true });
  } finally {
    await verified.repository.dispose();
  }
}

/** A budget refusal, with where the work is kept and how to restore it. */
function keptOverBudget(error: OutpostError, backup: RecoveryBackup): OutpostError {
  return new OutpostError(
    "limit",
    `${error.message} The work is backed up in ${backup.location} (restore it with \`${backup.restore}\`).`,
    {
      cause: error,
      details: { ...error.details, recoveryLocation: backup.location, restore: backup.restore },
    },
  );
}

/** Waits for a remote lease's release that `syncBack` started; a failure there leaves the record for `outpost clean`. */
export async function settleRelease(state: DispatchState): Promise<void> {
  const releasing = state.releasing;
  if (releasing === undefined) return;
  state.releasing = undefined;
  state.cleanupFailed = true;
  await releasing;
  state.cleanupFailed = false;
}
