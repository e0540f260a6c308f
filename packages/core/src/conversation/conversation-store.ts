import type { SandboxLease } from "../sandbox/sandbox-lease.js";
import type { ConversationRecord } from "./conversation-record.js";

export interface ConversationContext {
  /** Host checkout the conversation belongs to. */
  readonly repository: string;
  readonly sandbox: SandboxLease;
  /** Host scratch directory the store may use. */
  readonly staging: string;
  /** Host home override (`conversationHome`). */
  readonly home?: string;
  /** Host placement: the store may read and write the sandbox files directly. */
  readonly local?: boolean;
  readonly warn?: (message: string) => void;
  readonly signal?: AbortSignal;
  /**
   * Variables the agent's commands run with (its `variables` over `.outpost/.env`). A CLI home variable
   * (`root.variable`) set here wins over the sandbox's own environment, as it does for the agent.
   */
  readonly variables?: Readonly<Record<string, string>>;
}

/** Captures, locates and restores one agent's conversations. */
export interface ConversationStore {
  /** Contract version this implementation follows, checked when the plugin is handed to the engine or a kit; omitted, the version the reference pages describe ("v1"). */
  readonly specificationVersion?: "v1";
  /** Store name, e.g. `claude` or `transport:<namespace>:<format>`. */
  readonly name: string;
  /** Finds a captured conversation on the host; fails with code `session` when it is absent. */
  locate(id: string, repository: string, home?: string): Promise<ConversationRecord>;
  /**
   * Saves conversation `id` from the context's sandbox to the host after a turn. When the agent saved no
   * conversation under `id`, fails with code `session` and `details.absent: true` (steering then starts over).
   */
  capture(id: string, context: ConversationContext): Promise<ConversationRecord>;
  /**
   * Optional: a turn is starting in the context's sandbox, and `capture` will follow it with the same context.
   * The store may start what its capture needs meanwhile (its sandbox process, say), so that the capture
   * after the turn waits for less. Never throws; whatever it started goes with the lease.
   */
  prepareCapture?(context: ConversationContext): void;
  /** Writes a located record into the context's sandbox, relocating recorded paths to its workspace. */
  restore(record: ConversationRecord, context: ConversationContext): Promise<void>;
}

/** A store of one agent's native conversation files. */
export interface NativeConversationStore extends ConversationStore {
  /** Persisted format name, used in transport keys, bundles and records. Keep it stable. */
  readonly format: string;
  /** Host directory that holds this format's captured conversations for a repository. */
  directory(repository: string, home?: string): string;
  /** Sandbox path that restoration writes for a captured conversation. */
  destination(id: string, sandbox: SandboxLease, original: string): string;
}
