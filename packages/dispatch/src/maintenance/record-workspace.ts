import { OutpostError } from "@outpost/core";
import type { ActivityRecord } from "../activity/activity-record.js";
import { findRepository } from "../git/repository.js";
import type { Workspace } from "../workspace/workspace.js";

/** The workspace a dead dispatch's record describes, to bring its sandbox's work back onto its branch. */
export async function recordWorkspace(root: string, record: ActivityRecord): Promise<Workspace> {
  if (!record.baseline) throw new OutpostError("workspace", "the record has no baseline commit");
  const repository = await findRepository(root);
  return {
    mode: record.mode ?? "current",
    root,
    commonDirectory: repository.commonDirectory,
    gitDirectory: repository.gitDirectory,
    directory: record.directory,
    branch: record.branch,
    ...(record.target ? { target: record.target } : {}),
    baseline: record.baseline,
    created: record.worktreeCreated === true,
    branchCreated: record.branchCreated === true,
    untrackedCopies: [],
  };
}
