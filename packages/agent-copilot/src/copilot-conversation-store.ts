import { sessionBundleStore, type PortableConversationStore, type SessionBundleStoreOptions } from "@outpost/conversations";
import { copilotSessionProfile } from "./copilot-session-profile.js";

export type CopilotConversationStoreOptions = SessionBundleStoreOptions;

/** Copilot CLI conversations, captured as one session bundle each (see `copilotSessionProfile`). */
export function copilotConversationStore(options: CopilotConversationStoreOptions = {}): PortableConversationStore {
  return sessionBundleStore(copilotSessionProfile, options);
}
