import type { ConversationRecord, NativeConversationStore } from "@outpost/core";

/** A store whose captured conversations can be moved as one object (see `archivedStore`). */
export interface PortableConversationStore extends NativeConversationStore {
  /** Every host file of a captured conversation, as one byte string. */
  pack(record: ConversationRecord): Promise<Uint8Array>;
  /** Writes packed bytes back under `directory(repository, home)` and returns the record. */
  unpack(id: string, bytes: Uint8Array, repository: string, home?: string): Promise<ConversationRecord>;
}

export function isPortableConversationStore(store: NativeConversationStore): store is PortableConversationStore {
  return (
    typeof (store as Partial<PortableConversationStore>).pack === "function" &&
    typeof (store as Partial<PortableConversationStore>).unpack === "function"
  );
}
