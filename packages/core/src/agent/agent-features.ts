import type { ConversationStore } from "../conversation/conversation-store.js";
import type { Usage } from "./usage.js";

/** How token usage is measured: from the stream, from the session after exit, or not at all. */
export type UsageMode = "events" | "session" | "unavailable";

/** A vendor CLI on npm at the release an agent plugin is pinned to (what `bootstrap` installs for it). */
export interface PinnedCli {
  readonly npmPackage: string;
  readonly version: string;
}

/** Feature flags every agent declares (the reference's AgentFeatures). */
export interface AgentFeatures {
  /** Native agent identifier used in events and diagnostics. */
  readonly name: string;
  /**
   * Built-in agent whose pinned CLI the engine installs in a remote sandbox when the executable is missing
   * (e.g. `claude`); an unknown name fails with `configuration` before allocation.
   */
  readonly bootstrap?: string;
  /** This agent's own CLI at its pinned release: what `bootstrap` installs when it names this agent. */
  readonly cli?: PinnedCli;
  /** Without the native final event, markers do not match and the turn fails with code `process`. */
  readonly requiresFinishedEvent?: boolean;
  readonly usage?: UsageMode;
  /** Added to every command of this agent. A name also set by the provider fails with `configuration`. */
  readonly variables?: Readonly<Record<string, string>>;
  /** Captures, locates and restores this agent's sessions; absent when they are not portable. */
  readonly storage?: ConversationStore;
  /** Save the conversation after each turn; omitted: whenever storage is present. */
  readonly capture?: boolean;
  /** Can continue a conversation; false rejects continuation before allocation. */
  readonly resumable?: boolean;
  /** Starts a new conversation under the id given as `AgentTurn.conversationId` (steering then knows it from the start). */
  readonly namesConversations?: boolean;
  /** Can fork a conversation; false rejects fork before allocation. */
  readonly forkable?: boolean;
  /** Reads usage from the captured transcript; a result replaces the usage reported by events. */
  readonly transcriptUsage?: (text: string) => Usage | undefined;
}
