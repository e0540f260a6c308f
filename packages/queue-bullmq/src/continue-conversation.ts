import { OutpostError, type ConversationStore, type Transport } from "@outpost/core";
import { committedRecord } from "./committed-result.js";
import type { StoredConversation, StoredDispatchResult } from "./dispatch-job-result.js";
import type { DispatchJob } from "./dispatch-job.js";
import type { DispatchQueue } from "./dispatch-queue.js";
import { isPortableStore } from "./job-conversation.js";

/** The finished job a continuation continues: its committed record and the conversation it stored. */
export interface EarlierJob {
  readonly record: StoredDispatchResult;
  readonly conversation: StoredConversation;
}

/**
 * Reads the committed result of the job a continuation names (whichever worker ran it): it must have finished
 * in this queue and stored a packed conversation. Code `configuration` when it has no result, `session` when
 * it left no conversation to continue.
 */
export async function earlierJob(
  transport: Transport,
  queue: DispatchQueue,
  jobId: string,
  continuation: NonNullable<DispatchJob["continuation"]>,
): Promise<EarlierJob> {
  const record = await committedRecord(transport, queue, continuation.job);
  if (record === undefined)
    throw new OutpostError(
      "configuration",
      `Job ${jobId} continues job ${continuation.job}, which has no recorded result in queue ${queue.name}. ` +
        "Enqueue a continuation once the job it continues has completed.",
      { details: { job: jobId, continues: continuation.job } },
    );
  const conversation = record.conversation;
  if (conversation === undefined || !conversation.packed)
    throw new OutpostError(
      "session",
      `Job ${jobId} continues job ${continuation.job}, which stored no restorable conversation ` +
        "(its agent has no portable conversation storage, or reported no conversation id). Start a new job instead.",
      { details: { job: jobId, continues: continuation.job } },
    );
  return { record, conversation };
}

/**
 * Writes the earlier job's conversation into this worker's conversation home, where `dispatch()` finds it
 * to restore into the new sandbox. The agent's store must read the format the earlier job stored.
 */
export async function restoreConversation(
  transport: Transport,
  earlier: EarlierJob,
  store: ConversationStore | undefined,
  repository: string,
  conversationHome: string,
): Promise<void> {
  const { conversation } = earlier;
  if (!isPortableStore(store) || store.format !== conversation.format)
    throw new OutpostError(
      "configuration",
      `Job ${earlier.record.job} stored a ${conversation.format} conversation, which this job's agent cannot restore ` +
        `(${store === undefined ? "no conversation storage" : `its store is ${store.name}`}). Continue with the agent that ran it.`,
      { details: { continues: earlier.record.job, format: conversation.format } },
    );
  const object = await transport.read(conversation.key);
  if (object === undefined)
    throw new OutpostError(
      "transport",
      `The conversation of job ${earlier.record.job} (${conversation.key}) is not in ${transport.name}. ` +
        "Check that every worker shares one result transport.",
      { details: { continues: earlier.record.job, key: conversation.key } },
    );
  await store.unpack(conversation.id, object.bytes, repository, conversationHome);
}
