import { hostname } from "node:os";
import { join } from "node:path";
import { UnrecoverableError, Worker } from "bullmq";
import { isOutpostError, type AgentFactoryOptions, type PluginDescriptor, type Transport } from "@outpost/core";
import { assertNoEviction } from "./assert-noeviction.js";
import type { DispatchJobResult } from "./dispatch-job-result.js";
import type { DispatchQueue, QueuedDispatch } from "./dispatch-queue.js";
import { isRetryable } from "./failure-policy.js";
import { DEFAULT_PROTECTED_BRANCHES } from "./protected-branch.js";
import { RepositoryCache } from "./repository-cache.js";
import { runDispatchJob } from "./run-dispatch-job.js";
import { sandboxRemover } from "./sandbox-remover.js";
import type { Pricing } from "@outpost/dispatch";
import { workerPricing } from "./queue-budget.js";

export interface DispatchWorkerOptions {
  readonly queue: DispatchQueue;
  /** Agent and provider descriptors jobs may name (e.g. each plugin package's `descriptor`). */
  readonly plugins: readonly PluginDescriptor[];
  /** Transports jobs may name; the default result transport is `results`. Shared by all workers (S3). */
  readonly transports: Readonly<Record<string, Transport>>;
  /** This worker's own cache of clones; never shared with another worker process. */
  readonly cacheDirectory: string;
  /**
   * Branch patterns a job may publish on only with `repository.publishProtected: true` (`*` within a segment,
   * `**` across), besides the remote's default branch; default `DEFAULT_PROTECTED_BRANCHES`.
   */
  readonly protectedBranches?: readonly string[];
  /** Jobs run at once by this worker; default 1. */
  readonly concurrency?: number;
  /** Default `<hostname>-<pid>`. */
  readonly name?: string;
  /** Per agent name: the worker's keys and endpoint, layered over a job's options (jobs carry no credentials). */
  readonly agentDefaults?: Readonly<Record<string, AgentFactoryOptions>>;
  /** How long a job's lock lasts without renewal; a stalled worker loses its job after this. Default 30,000. */
  readonly lockDurationMs?: number;
  /** How often this worker looks for stalled jobs; default 30,000. */
  readonly stalledIntervalMs?: number;
  /** How often a job may be taken back from a stalled worker before it fails; default 2. */
  readonly maxStalledCount?: number;
  /** Prices per model for every job's dispatch (`pricing` of dispatch()): each turn's cost in its result. */
  readonly pricing?: Pricing;
  /**
   * The queue's budget in US dollars, shared by every worker given the same value (a Redis counter): once the
   * queue's jobs spent it, no further turn starts and the job fails with code `limit` (not retried). Needs `pricing`.
   */
  readonly budgetUsd?: number;
  /** Lifecycle events: a job started, completed, failed (with whether it will be retried). */
  readonly onEvent?: (event: DispatchWorkerEvent) => void;
}

export type DispatchWorkerEvent =
  | { readonly type: "reaped"; readonly actions: readonly string[] }
  | { readonly type: "job-start"; readonly job: string; readonly attempt: number }
  | { readonly type: "lock-lost"; readonly job: string }
  | { readonly type: "job-complete"; readonly job: string; readonly result: DispatchJobResult }
  | { readonly type: "job-fail"; readonly job: string; readonly code: string; readonly message: string; readonly retry: boolean };

export interface DispatchWorker {
  readonly name: string;
  readonly worker: Worker<QueuedDispatch, DispatchJobResult>;
  /** Stops taking jobs and waits for running ones (`force`: abandons them to other workers). */
  close(force?: boolean): Promise<void>;
}

/** Starts a worker on the queue; refuses (code `configuration`) a Redis that may evict keys. */
export async function runDispatchWorker(options: DispatchWorkerOptions): Promise<DispatchWorker> {
  const { queue } = options;
  await assertNoEviction(queue.redis, queue.url);
  const cache = new RepositoryCache(options.cacheDirectory);
  const name = options.name ?? `${hostname()}-${process.pid}`;
  const emit = (event: DispatchWorkerEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // an observer's failure never changes a job
    }
  };
  // What this worker left when it was killed: orphaned agents, sandboxes and worktrees of dead attempts.
  const reaped = await cache.reap(sandboxRemover(options.plugins));
  if (reaped.length > 0) emit({ type: "reaped", actions: reaped });
  const context = {
    queue,
    worker: name,
    plugins: options.plugins,
    transports: options.transports,
    agentDefaults: options.agentDefaults ?? {},
    cache,
    conversationHome: join(options.cacheDirectory, "conversations"),
    protectedBranches: options.protectedBranches ?? DEFAULT_PROTECTED_BRANCHES,
    pricing: workerPricing(queue.redis, queue.name, options.pricing, options.budgetUsd),
  };
  const worker = new Worker<QueuedDispatch, DispatchJobResult>(
    queue.name,
    async (job, _token, signal) => {
      emit({ type: "job-start", job: job.id!, attempt: job.attemptsStarted });
      try {
        return await runDispatchJob(context, job, signal);
      } catch (error) {
        // Aborted because this worker lost the lock: another worker has the job, this attempt just ends.
        const retry = !signal?.aborted && isRetryable(error);
        const code = signal?.aborted ? "aborted" : isOutpostError(error) ? error.code : "process";
        const message = error instanceof Error ? error.message : String(error);
        emit({ type: "job-fail", job: job.id!, code, message, retry });
        // BullMQ retries a thrown error while attempts remain; an UnrecoverableError fails the job at once.
        if (retry) throw error;
        throw new UnrecoverableError(`[${code}] ${message}`);
      }
    },
    {
      connection: { url: queue.url, maxRetriesPerRequest: null },
      name,
      concurrency: options.concurrency ?? 1,
      lockDuration: options.lockDurationMs ?? 30_000,
      stalledInterval: options.stalledIntervalMs ?? 30_000,
      maxStalledCount: options.maxStalledCount ?? 2,
      autorun: true,
    },
  );
  // Only after BullMQ recorded the completion under this worker's lock: a stalled worker's late return is not one.
  worker.on("completed", (job, result) => emit({ type: "job-complete", job: job.id!, result }));
  // A lock this worker could not renew belongs to another worker by now: stop the attempt (its agent and
  // sandbox); the fence refuses whatever it would still try to publish.
  worker.on("lockRenewalFailed", (jobIds) => {
    for (const job of jobIds) {
      emit({ type: "lock-lost", job });
      worker.cancelJob(job, "this worker lost the job's lock");
    }
  });
  worker.on("error", () => undefined); // connection errors while Redis restarts: ioredis reconnects
  await worker.waitUntilReady();
  return {
    name,
    worker,
    close: async (force = false) => {
      await worker.close(force);
      await cache.settled();
    },
  };
}
