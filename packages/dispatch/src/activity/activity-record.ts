import type { ProcessIdentity } from "@outpost/plugin-utils";

/**
 * What is known about a dispatch while it runs, so a crashed or failed one can be found (`outpost ps`),
 * cleaned up (`outpost clean`) and its work recovered (`outpost recover`).
 */
export interface ActivityRecord {
  readonly dispatchId: string;
  readonly label?: string;
  readonly agent: string;
  readonly provider: string;
  readonly repository: string;
  /** Where the agent works (the checkout itself under the `current` policy). */
  readonly directory: string;
  readonly branch?: string;
  /** The runner's pid (kept for older readers; `runner` tells a reused pid apart). */
  readonly pid: number;
  /** The process running the dispatch: pid, start time, boot id, pid namespace, host. */
  readonly runner?: ProcessIdentity;
  readonly startedAt: string;
  /**
   * `running` while the dispatch runs; `failed` once a failure is recorded; `finished` when it ended
   * well but its worktree was kept (uncommitted changes, untracked copies).
   */
  readonly state: "running" | "failed" | "finished";
  /** The phase that failed, or the one the dispatch was in. */
  readonly phase?: string;
  readonly error?: { readonly code: string; readonly message: string };
  /** The branch policy's mode and what the dispatch created (only that is ever removed by a clean). */
  readonly mode?: "current" | "named" | "integrate";
  readonly worktreeCreated?: boolean;
  readonly branchCreated?: boolean;
  /** Integration target (integrate policy). */
  readonly target?: string;
  /** The commit the agent started from. */
  readonly baseline?: string;
  /** Host temporary directory of the dispatch. */
  readonly staging?: string;
  /** The agent's home on the host (host providers with a private home). */
  readonly home?: string;
  /** The sandbox's private git directory (mounted sandboxes): its commits are imported by a clean. */
  readonly sandboxGit?: string;
  /** The lease's `sandboxId`: what its provider's descriptor removes after a crash (a Docker container id, a cloud sandbox). */
  readonly sandbox?: string;
  /** The lease's root in a sandbox with its own file system: where a clean reads the commits of a dead run. */
  readonly sandboxRoot?: string;
  /** Records written before `sandbox` existed: the Docker container's id. */
  readonly container?: string;
  /** Process group of the agent on the host (host providers). */
  readonly agentProcessGroup?: number;
}

/** Storage key of a dispatch's record, in a transport or under `.outpost/storage`. */
export function activityKey(dispatchId: string): string {
  return `activity/${dispatchId}.json`;
}

/** The variable every agent process of a dispatch carries, so its orphans can be found after a crash. */
export const DISPATCH_ID_VARIABLE = "OUTPOST_DISPATCH_ID";
