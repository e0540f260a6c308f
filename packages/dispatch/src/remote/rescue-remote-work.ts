import type { SandboxLease } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import { collectSandboxWork } from "./sandbox-work.js";
import { backUpBeforeApplying, type RecoveryBackup } from "./recovery-backup.js";
import { verifyWorkBundle } from "./verify-work-bundle.js";
import { checkWorkObjects } from "./check-work-objects.js";

/** How long rescuing may take: it runs after a failure, without the dispatch's (maybe aborted) signal. */
const RESCUE_MS = 120_000;

/**
 * After a failure while a remote sandbox is held: its commits exist nowhere else, so before it is released
 * they are bundled, verified like a sync back (every object checked by fsck), and kept in the recovery
 * location, with nothing applied.
 * Returns the backup, or undefined when there was nothing to rescue or it could not be verified.
 */
export async function rescueRemoteWork(
  workspace: Workspace,
  lease: SandboxLease,
  staging: string,
  maxBytes: number,
  dispatchId: string,
): Promise<RecoveryBackup | undefined> {
  const { bundle } = await collectSandboxWork(workspace, lease, staging, maxBytes, AbortSignal.timeout(RESCUE_MS));
  if (!bundle) return undefined;
  const verified = await verifyWorkBundle(workspace, bundle);
  try {
    await checkWorkObjects(workspace, verified);
    return await backUpBeforeApplying(workspace, bundle, dispatchId);
  } finally {
    await verified.repository.dispose();
  }
}
