import { readFile } from "node:fs/promises";
import type { ConversationRecord, ConversationStore } from "@outpost/core";

/**
 * A conversation store whose captured conversations move as one byte string (every store of
 * `@outpost/conversations` and the agent packages): what a worker stores so another worker can continue it.
 */
export interface PortableStore extends ConversationStore {
  readonly format: string;
  pack(record: ConversationRecord): Promise<Uint8Array>;
  unpack(id: string, bytes: Uint8Array, repository: string, home?: string): Promise<ConversationRecord>;
}

export function isPortableStore(store: ConversationStore | undefined): store is PortableStore {
  const candidate = store as Partial<PortableStore> | undefined;
  return typeof candidate?.pack === "function" && typeof candidate.unpack === "function" && typeof candidate.format === "string";
}

/**
 * The bytes stored for a captured conversation: the store's pack (transcript, origin and side files, restorable
 * on any worker), else only the transcript file (kept for reading; a continuation needs the pack).
 */
export async function conversationBytes(
  store: ConversationStore | undefined,
  record: ConversationRecord,
): Promise<{ readonly bytes: Uint8Array; readonly packed: boolean } | undefined> {
  if (isPortableStore(store)) return { bytes: await store.pack(record), packed: true };
  const bytes = await readFile(record.file).catch(() => undefined);
  return bytes === undefined ? undefined : { bytes, packed: false };
}
