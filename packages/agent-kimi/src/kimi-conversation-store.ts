import { sessionBundleStore, type PortableConversationStore, type SessionBundleStoreOptions } from "@outpost/conversations";
import { kimiCliSessionProfile } from "./kimi-cli-session-profile.js";
import { eitherLayoutStore } from "./kimi-layout-store.js";
import { kimiSessionProfile } from "./kimi-session-profile.js";

export interface KimiConversationStoreOptions extends SessionBundleStoreOptions {
  /**
   * Which session layout: `kimi-code` (`~/.kimi-code`, Kimi Code), `kimi-cli` (`~/.kimi`, the older Kimi CLI),
   * or `auto` (default): each capture takes the layout the session is present in, Kimi Code's first.
   */
  readonly layout?: "auto" | "kimi-code" | "kimi-cli";
}

/** Kimi conversations, captured as one session bundle each (see `kimiSessionProfile`, `kimiCliSessionProfile`). */
export function kimiConversationStore(options: KimiConversationStoreOptions = {}): PortableConversationStore {
  const { layout = "auto", ...rest } = options;
  if (layout === "kimi-code") return sessionBundleStore(kimiSessionProfile, rest);
  if (layout === "kimi-cli") return sessionBundleStore(kimiCliSessionProfile, rest);
  return eitherLayoutStore(sessionBundleStore(kimiSessionProfile, rest), sessionBundleStore(kimiCliSessionProfile, rest));
}
