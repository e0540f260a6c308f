import type { Transport, TransportReference } from "@outpost/core";
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
 * Stores the attempt's record and its captured conversation (create-only: an attempt writes its own keys
 * once), so a continuation can restore the conversation on any worker. Returns what it wrote, so an attempt
 * that then loses its fence can take its objects back.
 */
export async function storeResult(
  transport: Transport,
  keys: ResultKeys,
  record: StoredDispatchResult,
  conversation?: Uint8Array,
): Promise<TransportReference[]> {
  const written: TransportReference[] = [];
  if (conversation !== undefined) {
    const entry = await transport.write(keys.conversation, conversation, { ifRevision: null });
    written.push({ key: entry.key, revision: entry.revision });
  }
  const entry = await transport.write(keys.result, new TextEncoder().encode(JSON.stringify(record, null, 2)), { ifRevision: null });
  written.push({ key: entry.key, revision: entry.revision });
  return written;
}

/** Removes objects of an attempt whose result was refused (best effort: nothing points at them). */
export async function withdrawResult(transport: Transport, written: readonly TransportReference[]): Promise<void> {
  for (const object of written) await transport.remove(object.key, { ifRevision: object.revision }).catch(() => undefined);
}
