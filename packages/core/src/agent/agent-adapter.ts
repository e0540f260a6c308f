import type { AgentEvent, FailureClassification } from "./agent-event.js";
import type { AgentFeatures } from "./agent-features.js";

/** One turn an adapter is asked to start. */
export interface AgentTurn {
  readonly prompt: string;
  /** Continue this native conversation; `fork` continues a copy and leaves the original intact. */
  readonly resume?: { readonly id: string; readonly fork?: boolean };
  /** Pre-assigned id of a new conversation, where the CLI supports it. */
  readonly conversationId?: string;
  readonly model?: string;
  /** Workspace directory in the sandbox (the lease root). */
  readonly root: string;
  /** Agent home in the sandbox (the lease home). */
  readonly home: string;
  /**
   * True when the lease home may be the user's own (a host home Outpost did not create for the lease): the
   * CLI's own configuration files there are the user's, so settings go through flags, variables or files of
   * the agent's own (`homeFiles` must never name the CLI's configuration files then).
   */
  readonly sharedHome?: boolean;
}

/** The process that runs one turn. */
export interface AgentCommand {
  readonly executable: string;
  readonly arguments: readonly string[];
  /** The prompt, where the CLI reads it from stdin. */
  readonly stdin?: string;
  readonly variables: Readonly<Record<string, string>>;
  readonly directory?: string;
}

/** A file the CLI needs in the lease home (settings pointing at the endpoint, telemetry off, …). */
export interface AgentHomeFile {
  /** Relative to the lease home. Written 0600 inside 0700 directories. */
  readonly path: string;
  readonly content: string;
}

/** What a decoder is told about the turn it decodes. */
export interface DecoderContext {
  /** The turn whose output is decoded (a continued turn may report usage differently). */
  readonly turn?: AgentTurn;
  /** Receives this turn's diagnostics: event kinds the decoder does not know, version warnings. */
  readonly diagnostic?: (message: string) => void;
}

/** Decodes one complete output line into normalized events. May keep state across lines. */
export interface AgentLineDecoder {
  decode(line: string): AgentEvent[];
}

/** Classifies CLI error output; versioned with the CLI version it was recorded from. */
export interface FailureRule {
  readonly id: string;
  readonly classification: FailureClassification;
  readonly pattern: RegExp;
  readonly cliVersion: string;
}

/**
 * How a CLI takes instructions while its turn runs (Claude Code's stream-json input): stdin stays open after
 * the prompt, and each instruction is one more message on it. Used for steering on leases with `liveInput`.
 */
export interface AgentLiveInput {
  /** The turn's command with stdin kept open; its `stdin` carries the prompt as the first message. */
  command(turn: AgentTurn): AgentCommand;
  /** The bytes written to stdin for one instruction (a complete line). */
  message(text: string): string;
}

/** What an agent plugin implements: build the command for a turn, decode its output. */
export interface AgentAdapter extends AgentFeatures {
  readonly kind: "cli";
  readonly specificationVersion: "v1";
  /** Executable name looked up on PATH in the sandbox. */
  readonly executable: string;
  /** Throws code `configuration` for what the CLI cannot do (e.g. fork). */
  command(turn: AgentTurn): AgentCommand;
  homeFiles?(turn: AgentTurn): readonly AgentHomeFile[];
  /** One decoder per turn; `context` carries the turn and its diagnostic channel. */
  createDecoder(context?: DecoderContext): AgentLineDecoder;
  /**
   * Why this agent (at its CLI version) cannot continue or fork a conversation, naming the version that
   * can; undefined when it can. Checked with `resumable` / `forkable` before anything is allocated.
   */
  unsupported?(feature: "continuation" | "fork"): string | undefined;
  readonly failureRules?: readonly FailureRule[];
  /** Present when the CLI takes instructions during a turn; steering then injects instead of stopping and resuming. */
  readonly liveInput?: AgentLiveInput;
}
