import type { SandboxContext, SandboxPlacement } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import { restoreControlFiles, snapshotControlFiles } from "./git-control-files.js";
import { importSandboxCommits } from "./import-sandbox-commits.js";
import { createSandboxGit, type SandboxGitDirectory } from "./sandbox-git.js";

/** How the host's git directory is kept out of the sandbox's reach for one lease. */
export interface GitBoundary {
  /** The git part of the sandbox context. */
  readonly context: Pick<SandboxContext, "gitDirectories" | "git">;
  /**
   * After the lease is released: restores any git control file that changed (returning their paths), then
   * imports the sandbox's commits, if it had its own git directory.
   */
  close(dispatchId: string): Promise<{ readonly restored: readonly string[] }>;
  /** Removes the sandbox's git directory when the lease could not even be acquired. */
  dispose(): Promise<void>;
}

/**
 * A mounted sandbox gets a private git directory and never the host's; a host sandbox (the agent is a host
 * process) can only be checked afterwards: the control files are snapshotted and restored when changed.
 */
export async function openGitBoundary(workspace: Workspace, placement: SandboxPlacement): Promise<GitBoundary> {
  // A remote sandbox gets a bundle of the work branch (seed stage) and nothing of the host's git directory.
  if (placement === "remote")
    return { context: { gitDirectories: [] }, close: async () => ({ restored: [] }), dispose: async () => undefined };
  // The snapshot and the sandbox's git directory are independent: made side by side, and neither is left behind.
  const [taken, made] = await Promise.allSettled([
    snapshotControlFiles(workspace),
    placement === "mounted" ? createSandboxGit(workspace) : Promise.resolve(undefined),
  ]);
  if (taken.status === "rejected") {
    if (made.status === "fulfilled") await made.value?.dispose();
    throw taken.reason;
  }
  if (made.status === "rejected") throw made.reason;
  const snapshot = taken.value;
  const sandbox: SandboxGitDirectory | undefined = made.value;
  return {
    context: sandbox
      ? { gitDirectories: [], git: { directory: sandbox.directory, objects: sandbox.objects } }
      : { gitDirectories: [workspace.commonDirectory] },
    close: async (dispatchId) => {
      const restored = await restoreControlFiles(workspace, snapshot);
      if (sandbox) {
        await importSandboxCommits(workspace, sandbox, dispatchId);
        await sandbox.dispose();
      }
      return { restored };
    },
    dispose: async () => {
      await sandbox?.dispose();
    },
  };
}
