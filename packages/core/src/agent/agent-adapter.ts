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
  /** The CLI release learned where this turn runs (see `AgentAdapter.cliVersion`); absent: not learned. */
  readonly cliVersion?: LearnedCliVersion;
}

/** What was learned of the CLI release in a sandbox: its version, or why it is unknown. */
export interface LearnedCliVersion {
  readonly version?: string;
  readonly problem?: string;
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
  /** The turn runs its live-input command (`liveInput.open`), whose output may have another format. */
  readonly live?: boolean;
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
 * How a CLI takes instructions while its turn runs: stdin stays open after the first bytes, and each instruction
 * is written to it (Claude Code: one more stream-json message; Codex: a `turn/steer` request to its app-server).
 * Used for steering on leases with `liveInput`; one session per turn, because a protocol keeps state.
 */
export interface AgentLiveInput {
  /** Opens the live session of one turn: its command, and how instructions reach it. */
  open(turn: AgentTurn): AgentLiveSession;
}

/** One turn's live input. The turn's output is decoded by a decoder created with `live: true`. */
export interface AgentLiveSession {
  /** The turn's command with stdin kept open; its `stdin` is written first (the prompt, or a protocol's opening). */
  readonly command: AgentCommand;
  /** One instruction: the bytes to write now, and, where the CLI answers it, whether it was taken. */
  message(text: string): AgentLiveMessage;
  /** Sees each stdout line before it is decoded; returns bytes to write to stdin (a protocol's next request). */
  reply?(line: string): string | undefined;
  /** The process ended: instructions not answered yet are refused. */
  close?(): void;
}

/** What one instruction becomes. */
export interface AgentLiveMessage {
  /** Written to stdin now (may be empty while the session waits to be able to send it). */
  readonly write: string;
  /** Resolves once the CLI took the instruction; rejects with code `steering` (`details.reason` says why) when it refused it. */
  readonly accepted?: Promise<void>;
}

/** What an agent plugin implements: build the command for a turn, decode its output. */
export interface AgentAdapter extends AgentFeatures {
  readonly kind: "cli";
  /** Contract version; omitted, it is the version the reference pages describe ("v1"). Another is refused. */
  readonly specificationVersion?: "v1";
  /** Executable name looked up on PATH in the sandbox. */
  readonly executable: string;
  /**
   * Present when what the agent runs depends on its CLI release: the engine learns the version in each
   * lease (`probeCliVersion`) unless `given` names it, and passes it as `AgentTurn.cliVersion`.
   */
  readonly cliVersion?: { readonly given?: string };
  /** What the user must hear about that release (outside the tested range, unknown and what that changes). */
  cliWarnings?(learned: LearnedCliVersion): readonly string[];
  /** Throws code `configuration` for what the CLI cannot do (e.g. fork). */
  command(turn: AgentTurn): AgentCommand;
  homeFiles?(turn: AgentTurn): readonly AgentHomeFile[];
  /** One decoder per turn; `context` carries the turn and its diagnostic channel. */
  createDecoder(context?: DecoderContext): AgentLineDecoder;
  /**
   * Why this agent (at its CLI version) cannot continue or fork a conversation, naming the version that
   * can; undefined when it can. Checked with `resumable` / `forkable` before anything is allocated, and
   * again with the version `learned` in the lease before the turn starts.
   */
  unsupported?(feature: "continuation" | "fork", learned?: LearnedCliVersion): string | undefined;
  readonly failureRules?: readonly FailureRule[];
  /** Present when the CLI takes instructions during a turn; steering then injects instead of stopping and resuming. */
  readonly liveInput?: AgentLiveInput;
}
