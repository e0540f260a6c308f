import { readFile, stat } from "node:fs/promises";
import type { Transport } from "@outpost/core";
import type { StoredDispatchResult } from "./dispatch-job-result.js";

export interface ResultKeys {
  readonly result: string;
  readonly conversation: string;
}

/** Where a job's records live in the result transport: one folder per job, one object per attempt. */
export function resultKeys(queueName: string, jobId: string, fence: number): ResultKeys {
  const folder = `${queueName}/${jobId}`;
  return { result: `${folder}/result-${fence}.json`, conversation: `${folder}/conversation-${fence}` };
}

/**
 * Stores the attempt's record and its captured conversation file (create-only: an attempt writes its own
 * keys once), so a continuation can restore the conversation on any worker.
 */
export async function storeResult(
  transport: Transport,
  keys: ResultKeys,
  record: StoredDispatchResult,
  conversationFile?: string,
): Promise<void> {
  if (conversationFile !== undefined && (await stat(conversationFile).catch(() => undefined))?.isFile()) {
    await transport.write(keys.conversation, await readFile(conversationFile), { ifRevision: null });
  }
  await transport.write(keys.result, new TextEncoder().encode(JSON.stringify(record, null, 2)), { ifRevision: null });
}
