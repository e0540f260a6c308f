import type { ActivityRecord } from "../activity/activity-record.js";
import { findRepository } from "../git/repository.js";
import { dispatchStatus, type DispatchStatus } from "./dispatch-status.js";
import { keptCommits } from "./kept-commits.js";
import { readActivityRecords } from "./read-activity.js";
import { sandboxCommits } from "./sandbox-commits.js";

export interface DispatchEntry {
  readonly record: ActivityRecord;
  readonly status: DispatchStatus;
  /** Commits only the dispatch's own branch holds. */
  readonly keptCommits: readonly string[];
  /** Commits still in its sandbox, not on the branch yet (`unknown`: a sandbox with its own file system still exists). */
  readonly sandboxCommits: number | "unknown";
}

/** Every dispatch of the checkout at `repository` that left a record: running, dead, or ended with kept work. */
export async function listDispatches(options: { readonly repository?: string } = {}): Promise<DispatchEntry[]> {
  const { root } = await findRepository(options.repository ?? process.cwd());
  const records = await readActivityRecords(root);
  return Promise.all(
    records.map(async (record) => ({
      record,
      status: dispatchStatus(record),
      keptCommits: await keptCommits(record),
      sandboxCommits: await sandboxCommits(record),
    })),
  );
}
