import type { Transport, TransportReference } from "@outpost/core";
import type { StoredDispatchResult } from "./dispatch-job-result.js";

export interface ResultKeys {
  readonly result: string;
  readonly conversation: string;
  readonly bundle: string;
}

/** Where a job's records live in the result transport: one folder per job, one object per attempt. */
export function resultKeys(queueName: string, jobId: string, fence: number): ResultKeys {
  const folder = `${queueName}/${jobId}`;
  return {
    result: `${folder}/result-${fence}.json`,
    conversation: `${folder}/conversation-${fence}`,
    bundle: `${folder}/commits-${fence}.bundle`,
  };
}

/**
 * Stores the attempt's record, its commits (a git bundle) and its captured conversation (create-only: an
 * attempt writes its own keys once), so any worker can publish its branch or restore its conversation. The
 * record goes last: what it points at is already there. Returns what it wrote, so an attempt that then loses
 * its fence can take its objects back.
 */
export async function storeResult(
  transport: Transport,
  keys: ResultKeys,
  record: StoredDispatchResult,
  attached: { readonly conversation?: Uint8Array; readonly bundle?: Uint8Array },
): Promise<TransportReference[]> {
  const objects = [
    ...(attached.conversation === undefined ? [] : [{ key: keys.conversation, bytes: attached.conversation }]),
    ...(attached.bundle === undefined ? [] : [{ key: keys.bundle, bytes: attached.bundle }]),
  ];
  const written: TransportReference[] = await Promise.all(
    objects.map(async ({ key, bytes }) => {
      const entry = await transport.write(key, bytes, { ifRevision: null });
      return { key: entry.key, revision: entry.revision };
    }),
  );
  const entry = await transport.write(keys.result, new TextEncoder().encode(JSON.stringify(record, null, 2)), { ifRevision: null });
  written.push({ key: entry.key, revision: entry.revision });
  return written;
}

/** Removes objects of an attempt whose result was refused (best effort: nothing points at them). */
export async function withdrawResult(transport: Transport, written: readonly TransportReference[]): Promise<void> {
  for (const object of written) await transport.remove(object.key, { ifRevision: object.revision }).catch(() => undefined);
}
