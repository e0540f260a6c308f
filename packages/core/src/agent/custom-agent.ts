import type { SandboxLease } from "../sandbox/sandbox-lease.js";
import type {
  AgentAdapter,
  AgentCommand,
  AgentHomeFile,
  AgentLineDecoder,
  AgentTurn,
  DecoderContext,
  FailureRule,
  LearnedCliVersion,
} from "./agent-adapter.js";
import type { AgentFeatures } from "./agent-features.js";
import type { ReplayAgent } from "./replay-agent.js";

/** What a custom agent's fork hook is given. */
export interface AgentForkContext {
  /** The sandbox of the turn: the conversation to copy is there (restored from storage first when it came from one). */
  readonly sandbox: SandboxLease;
  /** The turn about to run on the copy (its `resume` still names the original, with `fork: true`). */
  readonly turn: AgentTurn;
  readonly signal?: AbortSignal;
}

/**
 * An agent whose turns the caller drives (page 003's `custom` kind): `request()` builds each turn's process,
 * its decoder turns the output into events, and the engine does the rest as for a CLI agent (timers,
 * markers, capture through `storage`, usage, steering by stop-and-resume). Fork goes through the `fork` hook
 * when there is one, else through `request()` with `turn.resume.fork` (page 003: "fork is attempted through
 * request() or the fork hook").
 */
export interface CustomAgent extends AgentFeatures {
  readonly kind: "custom";
  /** Contract version; omitted, it is the version the reference pages describe ("v1"). Another is refused. */
  readonly specificationVersion?: "v1";
  /**
   * The CLI the requests run, when they run one: `bootstrap` looks for it on a remote sandbox and `cliVersion`
   * asks its version. Omitted: the `bootstrap` name, else `name`.
   */
  readonly executable?: string;
  /** Present to have the CLI's release learned in each lease, as `AgentAdapter.cliVersion`. Needs `executable`. */
  readonly cliVersion?: { readonly given?: string };
  /** The process of one turn; may throw `configuration` for a turn it cannot run (e.g. a fork without the hook). */
  request(turn: AgentTurn): AgentCommand;
  /** One decoder per turn, as `AgentAdapter.createDecoder`. */
  createDecoder(context?: DecoderContext): AgentLineDecoder;
  homeFiles?(turn: AgentTurn): readonly AgentHomeFile[];
  readonly failureRules?: readonly FailureRule[];
  /** As `AgentAdapter.unsupported`: why a continuation or fork cannot be done, checked before allocation. */
  unsupported?(feature: "continuation" | "fork", learned?: LearnedCliVersion): string | undefined;
  cliWarnings?(learned: LearnedCliVersion): readonly string[];
  /**
   * The fork hook: copies conversation `id` in the sandbox, leaving it as it is, and returns the copy's id. The
   * turn then continues the copy (`resume: { id: copy }`), so `request()` never sees `fork: true`.
   */
  fork?(id: string, context: AgentForkContext): Promise<string>;
}

/** The agents the reference pages name (page 003): a CLI agent, a custom one, or a replay of a journal. */
export type Agent = AgentAdapter | CustomAgent | ReplayAgent;
