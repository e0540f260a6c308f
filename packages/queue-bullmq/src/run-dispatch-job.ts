import { OutpostError, type AgentFactoryOptions, type PluginDescriptor, type Transport } from "@outpost/core";
import { dispatch, type Pricing } from "@outpost/dispatch";
import type { Job } from "bullmq";
import { committedRecord, summaryOf } from "./committed-result.js";
import { earlierJob, restoreConversation } from "./continue-conversation.js";
import type { DispatchJobResult, StoredDispatchResult } from "./dispatch-job-result.js";
import type { DispatchQueue, QueuedDispatch } from "./dispatch-queue.js";
import { AttemptSandboxes } from "./attempt-sandboxes.js";
import { acquireFence } from "./fence.js";
import { conversationBytes } from "./job-conversation.js";
import { JobJournal } from "./job-journal.js";
import { bundleCommits } from "./commit-bundle.js";
import { endAttempt } from "./end-attempt.js";
import { keepFailedWork } from "./keep-failed-work.js";
import { assertMayPublish, cachedDefaultBranch } from "./protected-branch.js";
import { ownBranchOf, publishBranch, pushBranch } from "./publish-branch.js";
import type { RepositoryCache } from "./repository-cache.js";
import { resolvePlugins } from "./resolve-plugins.js";
import { runGit } from "./run-git.js";
import { sandboxRemover } from "./sandbox-remover.js";
import { resultKeys, storeResult, withdrawResult } from "./store-result.js";

export interface JobContext {
  readonly queue: DispatchQueue;
  readonly worker: string;
  readonly plugins: readonly PluginDescriptor[];
  readonly transports: Readonly<Record<string, Transport>>;
  readonly agentDefaults: Readonly<Record<string, AgentFactoryOptions>>;
  readonly cache: RepositoryCache;
  /** This worker's captured conversations (`conversationHome` of its dispatches; continuations restore here). */
  readonly conversationHome: string;
  /** Branch patterns a job publishes on only with `repository.publishProtected` (besides the remote's default branch). */
  readonly protectedBranches: readonly string[];
  /** The worker's prices, with the queue's ledger when it has a budget. */
  readonly pricing?: Pricing;
}

export const DEFAULT_RESULT_TRANSPORT = "results";

/**
 * One attempt at a job: take a fence token, fetch the remote into the cache, dispatch on a branch of this
 * attempt, store the record with the attempt's commits (a git bundle), then commit it in Redis (atomically with
 * the token check) and only then push the job's branch. A stale attempt can reach the commit but not past it:
 * the remote, the job's branch and its result are touched by the winning token alone.
 */
export async function runDispatchJob(context: JobContext, job: Job<QueuedDispatch>, signal?: AbortSignal): Promise<DispatchJobResult> {
  const spec = job.data.job;
  const jobId = job.id!;
  const transport = resultTransport(context, spec.transport);
  const fence = await acquireFence(context.queue.redis, context.queue.name, jobId);
  const journal = new JobJournal(job, context.worker, fence.token);
  const started = Date.now();
  try {
    // An earlier attempt committed its result but did not finish (it died publishing, or before BullMQ
    // recorded the completion): that result stands; the work is not done twice, its publication is finished.
    const committed = await committedRecord(transport, context.queue, jobId);
    if (committed !== undefined) {
      journal.phase("publish", `committed result of fence ${committed.fence}`);
      const checkout = await context.cache.checkout(spec.repository.url, spec.repository.base, signal);
      await publishBranch(checkout.directory, committed, transport, signal);
      journal.phase("done", `${committed.commits.length} commit(s) on ${committed.branch}`);
      return summaryOf(committed);
    }
    journal.phase("checkout", spec.repository.url);
    const { agent, provider, store } = await resolvePlugins(spec, context.plugins, context.agentDefaults);
    // A continuation starts where the job it continues published, and publishes on that branch by default.
    const earlier = spec.continuation && (await earlierJob(transport, context.queue, jobId, spec.continuation));
    const base = spec.repository.base ?? earlier?.record.branch;
    const checkout = await context.cache.checkout(spec.repository.url, base, signal);
    if (earlier) {
      journal.phase("continue", `job ${earlier.record.job} (worker ${earlier.record.worker}, fence ${earlier.record.fence})`);
      await restoreConversation(transport, earlier, store, checkout.directory, context.conversationHome);
    }
    const branch = spec.repository.branch ?? earlier?.record.branch ?? ownBranchOf(jobId);
    assertMayPublish(jobId, branch, {
      patterns: context.protectedBranches,
      defaultBranch: await cachedDefaultBranch(checkout.directory),
      optIn: spec.repository.publishProtected === true,
    });
    const localBranch = `outpost/queue/${jobId}/${fence.token}`;
    const sandboxes = new AttemptSandboxes(context.queue.redis, context.queue.name, jobId, fence.token);
    for (const reaped of await sandboxes.reapEarlier(sandboxRemover(context.plugins))) journal.phase("reap", reaped);
    journal.phase("dispatch", `fence ${fence.token} on ${checkout.baseCommit.slice(0, 12)}`);
    const result = await dispatch({
      agent,
      brief: spec.brief,
      sandboxProvider: sandboxes.recording(provider),
      repository: checkout.directory,
      branch: { mode: "named", name: localBranch, base: checkout.baseCommit },
      conversationHome: context.conversationHome,
      ...(earlier ? { continuation: { id: earlier.conversation.id, fork: spec.continuation?.fork ?? false } } : {}),
      ...(spec.label === undefined ? {} : { label: spec.label }),
      ...(spec.model === undefined ? {} : { model: spec.model }),
      ...(spec.passes === undefined ? {} : { passes: spec.passes }),
      ...(spec.idleMs === undefined ? {} : { idleMs: spec.idleMs }),
      ...(spec.deadlineMs === undefined ? {} : { deadlineMs: spec.deadlineMs }),
      ...(spec.until === undefined ? {} : { until: spec.until }),
      ...(signal ? { signal } : {}),
      ...(context.pricing ? { pricing: context.pricing } : {}),
      ...(spec.guard === undefined ? {} : { guard: spec.guard }),
      ...(spec.watchdog === undefined ? {} : { watchdog: spec.watchdog }),
      observe: (observation) =>
        journal.event(observation.event.type, "text" in observation.event ? String(observation.event.text) : undefined),
      warn: (message) => journal.phase("warning", message),
    })
      .catch(async (error: unknown) => {
        // A failed or aborted attempt: its commits go to the result transport, then nothing of it stays in the cache.
        const failure = await keepFailedWork(
          error,
          { directory: checkout.directory, base: checkout.baseCommit, localBranch, jobId },
          fence,
          transport,
          context.queue.name,
        );
        const removed = await context.cache
          .run(spec.repository.url, (directory) => endAttempt(directory, localBranch, sandboxRemover(context.plugins)))
          .catch((cleanup: unknown) => [
            `could not remove the attempt's work: ${cleanup instanceof Error ? cleanup.message : String(cleanup)}`,
          ]);
        for (const action of removed) journal.phase("cleanup", action);
        throw failure;
      })
      .finally(() => sandboxes.forget().catch(() => undefined));
    // The branch's tip without asking git: the commits are listed baseline..HEAD, oldest first, so the tip is last.
    const head = result.commits.at(-1) ?? checkout.baseCommit;
    const keys = resultKeys(context.queue.name, jobId, fence.token);
    await fence.check("store its result");
    journal.phase("store", keys.result);
    const localRef = `refs/heads/${localBranch}`;
    const [conversation, bundle] = await Promise.all([
      result.conversation && conversationBytes(store, result.conversation),
      result.commits.length > 0 ? bundleCommits(checkout.directory, checkout.baseCommit, localRef) : undefined,
    ]).finally(() =>
      // The bundle holds the commits now; the next job of this cache deletes the branch, this one does not wait.
      context.cache.tidy(spec.repository.url, (directory) => runGit(directory, ["branch", "-D", localBranch])),
    );
    const record: StoredDispatchResult = {
      dispatchId: result.dispatchId,
      branch,
      head,
      commits: result.commits,
      completed: result.completed,
      text: result.text.slice(0, 4_000),
      ...(result.conversationId === undefined ? {} : { conversationId: result.conversationId }),
      resultKey: keys.result,
      fence: fence.token,
      worker: context.worker,
      job: jobId,
      ...(bundle === undefined ? {} : { bundle: { key: keys.bundle, ref: localRef } }),
      ...(conversation && result.conversation
        ? {
            conversation: {
              id: result.conversation.id,
              format: result.conversation.format,
              key: keys.conversation,
              packed: conversation.packed,
            },
          }
        : {}),
      ...(earlier ? { continued: { job: earlier.record.job, worker: earlier.record.worker, fence: earlier.record.fence } } : {}),
      turns: result.turns.map((turn) => ({
        pass: turn.pass,
        text: turn.text,
        ...(turn.conversationId ? { conversationId: turn.conversationId } : {}),
      })),
      journal: journal.lines,
      durationMs: Date.now() - started,
    };
    const written = await storeResult(transport, keys, record, {
      ...(conversation ? { conversation: conversation.bytes } : {}),
      ...(bundle ? { bundle } : {}),
    });
    try {
      await fence.commit(keys.result);
    } catch (error) {
      // Refused: another attempt owns the job now. Take back what this one wrote; nothing points at it.
      await withdrawResult(transport, written);
      throw error;
    }
    journal.phase("publish", branch);
    await pushBranch(checkout.directory, record, signal);
    journal.phase("done", `${result.commits.length} commit(s) on ${branch}`);
    return summaryOf(record);
  } catch (error) {
    journal.phase("failed", error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    await journal.flush();
  }
}

function resultTransport(context: JobContext, name: string | undefined): Transport {
  const chosen = name ?? DEFAULT_RESULT_TRANSPORT;
  const transport = context.transports[chosen];
  if (transport === undefined)
    throw new OutpostError(
      "configuration",
      `This worker has no transport ${JSON.stringify(chosen)}; it has: ${Object.keys(context.transports).join(", ") || "none"}.`,
      { details: { transport: chosen } },
    );
  return transport;
}
