import { randomUUID } from "node:crypto";
import { OutpostError } from "@outpost/core";
import { assertDispatchJob, type DispatchJob } from "./dispatch-job.js";
import type { DispatchQueue, QueuedDispatch } from "./dispatch-queue.js";

export interface EnqueueOptions {
  /** Attempts for retryable failures (`quota`, `unavailable`, `provider`); default 3. */
  readonly attempts?: number;
  /** First retry delay, doubled each time; default 5,000 ms. */
  readonly backoffMs?: number;
}

export interface EnqueuedDispatch {
  readonly id: string;
  /** False when a job with the same idempotency key was already queued: nothing was added. */
  readonly added: boolean;
}

/**
 * Validates and queues one dispatch. With an idempotency key the job id is `key-<idempotencyKey>`, and BullMQ
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
