import { OutpostError, type Transport } from "@outpost/core";
import type { DispatchJobResult, StoredDispatchResult } from "./dispatch-job-result.js";
import type { DispatchQueue } from "./dispatch-queue.js";
import { committedResultKey } from "./fence.js";

/** The record Redis committed as the job's result, read from the result transport; undefined when none is. */
export async function committedRecord(
  transport: Transport,
  queue: DispatchQueue,
  jobId: string,
): Promise<StoredDispatchResult | undefined> {
  const key = await committedResultKey(queue.redis, queue.name, jobId);
  if (key === undefined) return undefined;
  const stored = await transport.read(key);
  if (stored === undefined)
    throw new OutpostError(
      "transport",
      `Job ${jobId} has a recorded result ${key} that its transport does not hold. Check that every worker shares one result transport.`,
      { details: { job: jobId, key } },
    );
  return JSON.parse(new TextDecoder().decode(stored.bytes)) as StoredDispatchResult;
}

/** What the queue keeps of a stored record. */
export function summaryOf(record: StoredDispatchResult): DispatchJobResult {
  const { dispatchId, branch, head, commits, completed, text, conversationId, resultKey, fence, worker } = record;
  return {
    dispatchId,
    branch,
    head,
    commits,
    completed,
    text,
    ...(conversationId === undefined ? {} : { conversationId }),
    resultKey,
    fence,
    worker,
  };
}
