import { sessionBundleStore, type PortableConversationStore, type SessionBundleStoreOptions } from "@outpost/conversations";
import { kimiSessionProfile } from "./kimi-session-profile.js";

export type KimiConversationStoreOptions = SessionBundleStoreOptions;

/** Kimi Code conversations, captured as one session bundle each (see `kimiSessionProfile`). */
export function kimiConversationStore(options: KimiConversationStoreOptions = {}): PortableConversationStore {
  return sessionBundleStore(kimiSessionProfile, options);
}
