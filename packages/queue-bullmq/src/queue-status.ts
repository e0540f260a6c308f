import type { DispatchJobResult } from "./dispatch-job-result.js";
import type { DispatchQueue } from "./dispatch-queue.js";
import type { DispatchJobProgress } from "./job-journal.js";

export type JobState = "waiting" | "active" | "delayed" | "completed" | "failed" | "prioritized" | "waiting-children" | "unknown";

/** One job as `outpost queue status|watch` shows it. */
export interface JobStatus {
  readonly id: string;
  readonly state: JobState;
  readonly label: string;
  readonly attemptsMade: number;
  readonly progress?: DispatchJobProgress;
  readonly failedReason?: string;
  /** The branch and commits of a completed job. */
  readonly result?: { readonly branch: string; readonly commits: readonly string[]; readonly worker: string; readonly resultKey: string };
}

export interface QueueStatus {
  readonly queue: string;
  readonly counts: Readonly<Record<string, number>>;
  /** Running jobs with their progress (phase, worker, fence). */
  readonly active: readonly JobStatus[];
  /** The most recently failed jobs, with why. */
  readonly failed: readonly JobStatus[];
}

/** Counts by state, the running jobs and the last failures of a queue. */
export async function queueStatus(queue: DispatchQueue, options: { readonly failedLimit?: number } = {}): Promise<QueueStatus> {
  const counts = await queue.queue.getJobCounts("waiting", "active", "delayed", "completed", "failed", "prioritized");
  const active = await queue.queue.getActive();
  const failed = await queue.queue.getFailed(0, (options.failedLimit ?? 10) - 1);
  return {
    queue: queue.name,
    counts,
    active: await Promise.all(active.map((job) => jobStatus(queue, job.id!))).then(known),
    failed: await Promise.all(failed.map((job) => jobStatus(queue, job.id!))).then(known),
  };
}

/** One job's state, progress and outcome; undefined when the queue has no such job. */
export async function jobStatus(queue: DispatchQueue, id: string): Promise<JobStatus | undefined> {
  // The state first: a job read after it holds at least what that state wrote (a failure's reason, a result).
  // Read the other way round, a job that failed in between showed "failed" without its reason.
  const state = await queue.queue.getJobState(id);
  if (state === "unknown") return undefined;
  const job = await queue.queue.getJob(id);
  if (job === undefined) return undefined;
  const progress = typeof job.progress === "object" && job.progress !== null ? (job.progress as unknown as DispatchJobProgress) : undefined;
  const value = job.returnvalue as Partial<DispatchJobResult> | null | undefined;
  return {
    id,
    state,
    label: job.name,
    attemptsMade: job.attemptsMade,
    ...(progress ? { progress } : {}),
    ...(job.failedReason ? { failedReason: job.failedReason } : {}),
    ...(state === "completed" && value?.branch
      ? { result: { branch: value.branch, commits: value.commits ?? [], worker: value.worker ?? "?", resultKey: value.resultKey ?? "?" } }
      : {}),
  };
}

/** The job's log lines (the journal the worker sends) from `start`. */
export async function jobLog(queue: DispatchQueue, id: string, start: number): Promise<readonly string[]> {
  const { logs } = await queue.queue.getJobLogs(id, start, -1, true);
  return logs;
}

function known(statuses: ReadonlyArray<JobStatus | undefined>): JobStatus[] {
  return statuses.filter((status): status is JobStatus => status !== undefined);
}
