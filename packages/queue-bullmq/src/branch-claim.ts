import { createHash } from "node:crypto";
import { OutpostError } from "@outpost/core";
import type { DispatchJob } from "./dispatch-job.js";
import type { DispatchQueue } from "./dispatch-queue.js";
import { ownBranchOf } from "./publish-branch.js";

// Takes the claim when it is free or still held by `expected` (the holder just judged finished): one winner.
const CLAIM = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] or holder == ARGV[2] then
  redis.call('SET', KEYS[1], ARGV[1])
  return false
end
return holder`;

// A holder in one of these states will not publish any more: its claim may pass to the next job.
const FINISHED = new Set(["completed", "failed", "unknown"]);

/**
 * The branch a job will publish on, as far as the queue can tell before it runs: its own `repository.branch`,
 * or for a continuation the branch of the job it continues (its published result, else what that job names).
 */
export async function publicationBranch(queue: DispatchQueue, id: string, job: DispatchJob, depth = 0): Promise<string> {
  if (job.repository.branch !== undefined) return job.repository.branch;
  if (job.continuation === undefined || depth > 32) return ownBranchOf(id);
  const earlier = await queue.queue.getJob(job.continuation.job);
  if (earlier === undefined) return ownBranchOf(job.continuation.job);
  return earlier.returnvalue?.branch ?? publicationBranch(queue, earlier.id!, earlier.data.job, depth + 1);
}

/**
 * Claims `branch` of the job's remote for job `id` in Redis: jobs publishing on one branch run one at a time.
 * A branch claimed by a job that is still waiting or running is refused with code `conflict`; a finished or
 * removed holder's claim passes on. The job's own default branch needs no claim: nobody else publishes there.
 */
export async function claimBranch(queue: DispatchQueue, id: string, job: DispatchJob): Promise<void> {
  const branch = await publicationBranch(queue, id, job);
  if (branch === ownBranchOf(id)) return;
  const remote = createHash("sha256").update(job.repository.url).digest("hex").slice(0, 16);
  const key = `outpost:{${queue.name}}:branch:${remote}:${branch}`;
  let expected = "";
  for (let round = 0; round < 8; round += 1) {
    const holder = (await queue.redis.eval(CLAIM, 1, key, id, expected)) as string | null;
    if (holder === null) return;
    const state = await queue.queue.getJobState(holder);
    if (!FINISHED.has(state))
      throw new OutpostError(
        "conflict",
        `Job ${holder} (${state}) already publishes on branch ${branch} of ${job.repository.url}: jobs on one branch run one at a time. ` +
          `Enqueue this job once it has finished (outpost queue watch ${holder}), or give it another repository.branch.`,
        { details: { job: id, branch, holder, state } },
      );
    expected = holder;
  }
  throw new OutpostError("conflict", `Branch ${branch} is being claimed by many jobs at once; enqueue job ${id} again.`, {
    details: { job: id, branch },
  });
}
