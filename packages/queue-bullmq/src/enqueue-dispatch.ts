import { randomUUID } from "node:crypto";
import { OutpostError } from "@outpost/core";
import { claimBranch, publicationBranch } from "./branch-claim.js";
import { assertDispatchJob, type DispatchJob } from "./dispatch-job.js";
import type { DispatchQueue, QueuedDispatch } from "./dispatch-queue.js";
import { assertMayPublish, DEFAULT_PROTECTED_BRANCHES } from "./protected-branch.js";

export interface EnqueueOptions {
  /** Attempts for retryable failures (`quota`, `unavailable`, `provider`); default 3. */
  readonly attempts?: number;
  /** First retry delay, doubled each time; default 5,000 ms. */
  readonly backoffMs?: number;
  /**
   * Branch patterns a job may publish on only with `repository.publishProtected` (`*` within a segment, `**`
   * across); default `DEFAULT_PROTECTED_BRANCHES`. Workers check them too, with the remote's default branch.
   */
  readonly protectedBranches?: readonly string[];
}

export interface EnqueuedDispatch {
  readonly id: string;
  /** False when a job with the same idempotency key was already queued: nothing was added. */
  readonly added: boolean;
}

/**
 * Validates and queues one dispatch: code `configuration` for a protected branch without opt-in, `conflict` for a
 * branch an unfinished job of this queue publishes on. With an idempotency key the job id is `key-<idempotencyKey>`, and BullMQ
 * adds a job of an existing id as a no-op; without one the id is random.
 */
export async function enqueueDispatch(queue: DispatchQueue, job: DispatchJob, options: EnqueueOptions = {}): Promise<EnqueuedDispatch> {
  assertDispatchJob(job);
  const attempts = options.attempts ?? 3;
  const backoffMs = options.backoffMs ?? 5_000;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)
    throw new OutpostError("configuration", `attempts must be an integer from 1 to 100, got ${attempts}.`);
  if (!Number.isInteger(backoffMs) || backoffMs < 0) throw new OutpostError("configuration", `backoffMs must be a non-negative integer.`);
  const id = job.idempotencyKey !== undefined ? `key-${job.idempotencyKey}` : `job-${randomUUID()}`;
  // Refused before anything is queued: a protected branch without opt-in, a branch another unfinished job publishes on.
  assertMayPublish(id, await publicationBranch(queue, id, job), {
    patterns: options.protectedBranches ?? DEFAULT_PROTECTED_BRANCHES,
    optIn: job.repository.publishProtected === true,
  });
  await claimBranch(queue, id, job);
  // A round trip through JSON: what the worker reads is exactly what was checked. The enqueue id tells this
  // add from an earlier one of the same key, which BullMQ keeps unchanged.
  const data: QueuedDispatch = { job: JSON.parse(JSON.stringify(job)) as DispatchJob, enqueueId: randomUUID() };
  await queue.queue.add(job.label ?? "dispatch", data, {
    jobId: id,
    attempts,
    backoff: { type: "exponential", delay: backoffMs },
  });
  const stored = await queue.queue.getJob(id);
  return { id, added: stored?.data.enqueueId === data.enqueueId };
}
