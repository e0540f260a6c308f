import { OutpostError, type AgentFactoryOptions, type PluginDescriptor, type Transport } from "@outpost/core";
import { dispatch, type DispatchResult } from "@outpost/dispatch";
import type { Job } from "bullmq";
import type { DispatchJobResult, StoredDispatchResult } from "./dispatch-job-result.js";
import type { DispatchQueue, QueuedDispatch } from "./dispatch-queue.js";
import { acquireFence, committedResultKey, fenceKeys } from "./fence.js";
import { JobJournal } from "./job-journal.js";
import type { RepositoryCache } from "./repository-cache.js";
import { resolvePlugins } from "./resolve-plugins.js";
import { runGit } from "./run-git.js";
import { resultKeys, storeResult } from "./store-result.js";

export interface JobContext {
  readonly queue: DispatchQueue;
  readonly worker: string;
  readonly plugins: readonly PluginDescriptor[];
  readonly transports: Readonly<Record<string, Transport>>;
  readonly agentDefaults: Readonly<Record<string, AgentFactoryOptions>>;
  readonly cache: RepositoryCache;
}

export const DEFAULT_RESULT_TRANSPORT = "results";

/**
 * One attempt at a job: take a fence token, fetch the remote into the cache, dispatch on a branch of this
 * attempt, then (each step fenced) push the branch, store the record and commit it as the job's result.
 */
export async function runDispatchJob(context: JobContext, job: Job<QueuedDispatch>, signal?: AbortSignal): Promise<DispatchJobResult> {
  const spec = job.data.job;
  const jobId = job.id!;
  const transportName = spec.transport ?? DEFAULT_RESULT_TRANSPORT;
  const transport = context.transports[transportName];
  if (transport === undefined)
    throw new OutpostError(
      "configuration",
      `This worker has no transport ${JSON.stringify(transportName)}; it has: ${Object.keys(context.transports).join(", ") || "none"}.`,
    );
  const fence = await acquireFence(context.queue.redis, context.queue.name, jobId);
  // An earlier attempt recorded its result but lost its lock before BullMQ marked the job complete: that
  // result stands, the work is not done twice.
  const committed = await committedResult(transport, context.queue, jobId);
  if (committed !== undefined) return committed;
  const journal = new JobJournal(job, context.worker, fence.token);
  const started = Date.now();
  try {
    journal.phase("checkout", spec.repository.url);
    const { agent, provider } = await resolvePlugins(spec, context.plugins, context.agentDefaults);
    const checkout = await context.cache.checkout(spec.repository.url, spec.repository.base, signal);
    const localBranch = `outpost/queue/${jobId}/${fence.token}`;
    journal.phase("dispatch", `fence ${fence.token} on ${checkout.baseCommit.slice(0, 12)}`);
    const result: DispatchResult = await dispatch({
      agent,
      brief: spec.brief,
      sandboxProvider: provider,
      repository: checkout.directory,
      branch: { mode: "named", name: localBranch, base: checkout.baseCommit },
      ...(spec.label === undefined ? {} : { label: spec.label }),
      ...(spec.model === undefined ? {} : { model: spec.model }),
      ...(spec.passes === undefined ? {} : { passes: spec.passes }),
      ...(spec.idleMs === undefined ? {} : { idleMs: spec.idleMs }),
      ...(spec.deadlineMs === undefined ? {} : { deadlineMs: spec.deadlineMs }),
      ...(spec.until === undefined ? {} : { until: spec.until }),
      ...(signal ? { signal } : {}),
      observe: (observation) =>
        journal.event(observation.event.type, "text" in observation.event ? String(observation.event.text) : undefined),
      warn: (message) => journal.phase("warning", message),
    });
    const remoteBranch = spec.repository.branch ?? `outpost/queue/${jobId}`;
    await fence.check("push its branch");
    journal.phase("push", remoteBranch);
    await runGit(checkout.directory, ["push", "--quiet", "--force", "origin", `refs/heads/${localBranch}:refs/heads/${remoteBranch}`], {
      remote: true,
      signal,
    });
    await runGit(checkout.directory, ["branch", "-D", localBranch]).catch(() => undefined);
    const keys = resultKeys(context.queue.name, jobId, fence.token);
    const summary: DispatchJobResult = {
      dispatchId: result.dispatchId,
      branch: remoteBranch,
      commits: result.commits,
      completed: result.completed,
      text: result.text.slice(0, 4_000),
      ...(result.conversationId === undefined ? {} : { conversationId: result.conversationId }),
      resultKey: keys.result,
      fence: fence.token,
      worker: context.worker,
    };
    await fence.check("store its result");
    journal.phase("store", keys.result);
    const record: StoredDispatchResult = {
      ...summary,
      job: jobId,
      ...(result.conversation
        ? { conversation: { id: result.conversation.id, format: result.conversation.format, key: keys.conversation } }
        : {}),
      turns: result.turns.map((turn) => ({
        pass: turn.pass,
        text: turn.text,
        ...(turn.conversationId ? { conversationId: turn.conversationId } : {}),
      })),
      journal: journal.lines,
      durationMs: Date.now() - started,
    };
    await storeResult(transport, keys, record, result.conversation?.file);
    try {
      await fence.commit(keys.result);
    } catch (error) {
      const winner = await committedResult(transport, context.queue, jobId);
      if (winner === undefined || (await context.queue.redis.get(fenceKeys(context.queue.name, jobId).fence)) !== String(fence.token))
        throw error;
      return winner;
    }
    journal.phase("done", `${result.commits.length} commit(s) on ${remoteBranch}`);
    return summary;
  } catch (error) {
    journal.phase("failed", error instanceof Error ? error.message : String(error));
    throw error;
  } finally {
    await journal.flush();
  }
}

async function committedResult(transport: Transport, queue: DispatchQueue, jobId: string): Promise<DispatchJobResult | undefined> {
  const key = await committedResultKey(queue.redis, queue.name, jobId);
  if (key === undefined) return undefined;
  const stored = await transport.read(key);
  if (stored === undefined)
    throw new OutpostError(
      "transport",
      `Job ${jobId} has a recorded result ${key} that its transport does not hold. Check that every worker shares one result transport.`,
    );
  const record = JSON.parse(new TextDecoder().decode(stored.bytes)) as StoredDispatchResult;
  const { dispatchId, branch, commits, completed, text, conversationId, resultKey, fence, worker } = record;
  return {
    dispatchId,
    branch,
    commits,
    completed,
    text,
    ...(conversationId === undefined ? {} : { conversationId }),
    resultKey,
    fence,
    worker,
  };
}
