import type {
  ConversationRecord,
  ReplayAgent,
  ReplayDivergence,
  SandboxProvider,
  Transport,
  TransportReference,
  Usage,
} from "@outpost/core";
import type { Logging } from "./journal/logging.js";
import type { Brief } from "./brief/brief.js";
import type { BranchPolicy } from "./workspace/branch-policy.js";
import type { LifecycleHooks } from "./hooks/lifecycle-hooks.js";
import type { StorageQuota } from "./quota/storage-quota.js";
import type { StageLimits } from "./options/stage-limits.js";
import type { BootstrapOptions } from "./bootstrap/bootstrap-options.js";
import type { AgentObservation, ObserverError } from "./observe/observers.js";
import type { DispatchAgent } from "./fallback/fallback-agent.js";
import type { FallbackReport } from "./fallback/run-with-fallback.js";
import type { ResponseAttempt, ResponseSpec } from "./response/response-spec.js";
import type { ObservationHub } from "./observe/observation-hub.js";
import type { DispatchTelemetry } from "./telemetry/dispatch-telemetry.js";
import type { Steering } from "./steering/steering.js";
import type { Workspace } from "./workspace/shared-workspace.js";
import type { ConversationError } from "./conversation/conversation-error.js";
import type { DiffGuard } from "./guard/diff-guard.js";
import type { Pricing } from "./cost/pricing.js";
import type { Watchdog } from "./watchdog/watchdog-options.js";
import type { Redaction } from "./redact/redact-options.js";
import type { WatchdogReport } from "./watchdog/report-watchdog.js";

/** Options of `dispatch()`; names and defaults follow the reference page. */
export interface DispatchOptions {
  /** The agent that runs the brief: a CLI agent adapter, a createFallbackAgent() chain (which refuses continuation), or a replay agent from createReplayAgent(). */
  readonly agent: DispatchAgent | ReplayAgent;
  /**
   * The journal: default, a journal through a local transport under `.outpost/storage`; `false` for none;
   * `"stdout"` for JSON lines on stdout; `{ transport, verbose, replayable }` to choose.
   */
  readonly logging?: Logging;
  /** Required, except with a replay agent: left out, the replay takes the brief its journal recorded. */
  readonly brief?: Brief;
  /** Name shown for this dispatch in progress reports. */
  readonly label?: string;
  /** Model passed to the agent, when it takes one. */
  readonly model?: string;
  /** Maximum passes, default 1. Each pass runs the brief in a new conversation; must be 1 with continuation. */
  readonly passes?: number;
  /** End marker(s) searched in the last turn's text, default `<outpost>done</outpost>`; `[]` runs every pass. */
  readonly until?: string | readonly string[];
  /** Longest accepted silence, default 600,000; past it the turn stops with code `timeout`. */
  readonly idleMs?: number;
  /** Silence after which a warning is emitted, then repeated at the same interval; default 60,000. */
  readonly idleWarningMs?: number;
  /** Wait after an end marker before stopping a still-running agent, default 60,000. The turn succeeds. */
  readonly settleMs?: number;
  /** Longest run of each agent process, default 3,600,000; past it the turn fails with code `timeout`. */
  readonly deadlineMs?: number;
  /** Deadline of each shell expansion of a brief file, default 30,000 (code `timeout`). */
  readonly expansionMs?: number;
  /** Aborting stops the agent's process tree and rejects with the signal's reason itself; `dispatchAbortError(reason)` gives the OutpostError (code `aborted`, recovery details). */
  readonly signal?: AbortSignal;
  /** Native conversation to continue; `fork: true` continues a copy. Needs one pass and a resumable agent with storage. */
  readonly continuation?: { readonly id: string; readonly fork?: boolean };
  /** From createSteering(): attached for the whole dispatch, released at its end; instructions are injected or resume the agent. */
  readonly steering?: Steering;
  /** Every normalized agent event with its pass number and timestamp. Exceptions land in observerErrors. */
  readonly observe?: (event: AgentObservation) => void;
  /** Non-blocking warnings (silent agent, conversation storage problems…). */
  readonly warn?: (message: string) => void;
  /** Diagnostics (estimated tokens of each expanded brief command…). */
  readonly diagnostic?: (message: string) => void;
  /**
   * An open workspace from openWorkspace() to work in; close() of the dispatch leaves it open. Combined with
   * repository, branch, copies or storageQuota, or while another dispatch holds it: code `configuration`.
   * workspaceReady does not run; hostReady and sandboxReady given here replace the workspace's.
   */
  readonly workspace?: Workspace;
  readonly hooks?: LifecycleHooks;
  /** Storage admission checked before the workspace opens (code `configuration` when refused). */
  readonly storageQuota?: StorageQuota;
  /** Path inside the host checkout, default the process's cwd. Outpost works from the checkout root. */
  readonly repository?: string;
  /** Default { mode: "current" }. */
  readonly branch?: BranchPolicy;
  /** Repository-relative files copied from the host checkout into a new worktree (named or integrate). */
  readonly copies?: readonly string[];
  /**
   * Remote providers only: also send the managed worktree's uncommitted changes and untracked, non-ignored files;
   * default false. Without it, the sync back fails with code `workspace` when the sandbox's work touches one of
   * them, which includes any `copies` entry no committed `.gitignore` ignores.
   */
  readonly includeUncommitted?: boolean;
  /** Time limits of copying, git preparation, commit collection and integration (code `timeout`; merge: `conflict`). */
  readonly limits?: StageLimits;
  /**
   * Remote providers: install a missing built-in agent CLI (the agent's `bootstrap` name) at its pinned version
   * before its first use; default true. Mounted and host providers install nothing: the CLI must be in the image
   * or on the host. The object form turns it on with settings (an npm registry, archive sources).
   */
  readonly bootstrap?: boolean | BootstrapOptions;
  /**
   * The provider that allocates the sandbox. Default: `dockerProvider()` from `@outpost/provider-docker` when that
   * package is installed (an optional peer, loaded only then); otherwise omitting it fails with `configuration`.
   */
  readonly sandboxProvider?: SandboxProvider;
  /**
   * Host directory under which captured native conversations are stored and found
   * (`<conversationHome>/.outpost/conversations/<format>`); default: your home for Claude, Codex, Gemini and
   * OpenCode conversations, the checkout root for Copilot and Kimi bundles (each store decides; see
   * `TranscriptStoreOptions.defaultHome`).
   */
  readonly conversationHome?: string;
  /**
   * The result must name a conversation that can be continued: when the last turn's conversation cannot be
   * captured, the dispatch fails with code `session` (`details.conversationError`), its work kept as for any
   * failure. Default false: a failed capture is a warning and `result.conversationError`. Needs an agent with storage.
   */
  readonly requireConversation?: boolean;
  /**
   * Remote providers only: before work brought back is applied, the host's recovery backup is also archived
   * here (one tar object at `recovery/<dispatchId>/backup.tar`), surviving the sandbox and `.outpost`.
   */
  readonly recoveryTransport?: Transport;
  /** Where the activity record of this sandbox lives; default a file under `.outpost/storage`. */
  readonly activityTransport?: Transport;
  /**
   * Typed response: the last `<tag>…</tag>` block of the answer is parsed and validated; an invalid one gets up
   * to `repairs` correction turns, resumed in the same conversation. Needs one pass. Final failure: code `response`.
   */
  readonly response?: ResponseSpec<unknown>;
  /** Parent hub: the dispatch reports into a child hub of its own dispatchId, drained before it returns or throws. */
  readonly observation?: ObservationHub;
  /** OpenTelemetry spans of the whole dispatch and each stage, through @opentelemetry/api; failures change nothing. */
  readonly telemetry?: DispatchTelemetry;
  /**
   * Bounds on what the agent may change (protected paths, changed lines and files), checked after the sync back
   * and again right before integrate; a violation fails with code `guard` and keeps the work on its branch.
   */
  readonly guard?: DiffGuard;
  /**
   * Prices per model (USD per million tokens): each turn's `costUsd` and the result's; `budgetUsd` stops the
   * dispatch with code `limit` before a turn once its turns cost that much.
   */
  readonly pricing?: Pricing;
  /**
   * Notices a stuck agent (the same tool call or text N times in a turn, no new event for a window) and stops it
   * (code `stuck`), warns, or steers it through `steering`; each finding is a `watchdog` event and in the result.
   */
  readonly watchdog?: Watchdog;
  /**
   * Patterns and literal values kept out of everything Outpost stores or emits: events, observations, telemetry
   * attributes, activity records, journals and error messages. The agent's credential variables are always
   * added. Captured native conversations stay byte-exact unless `conversations` is true.
   */
  readonly redact?: Redaction;
}

/** Options once the default provider is filled in: what every stage after the check reads. */
export type ProvidedOptions = DispatchOptions & { readonly sandboxProvider: SandboxProvider };

/** One agent turn of a dispatch. */
export interface DispatchTurn {
  readonly pass: number;
  readonly text: string;
  readonly usage: Usage;
  readonly conversationId?: string;
  /** The end marker found in the text, if any. */
  readonly marker?: string;
  /** The agent was stopped settleMs after its marker. */
  readonly settled: boolean;
  readonly durationMs: number;
  /** The agent that ran this turn (differs from the first candidate after a fallback). */
  readonly agent?: string;
  /** Set on a correction turn of a typed response: 1 for the first repair. */
  readonly repair?: number;
  /** Steering stopped this turn; the next turn resumed its conversation with the instructions. */
  readonly interrupted?: "steering";
  /** The steering instructions this turn resumed the conversation with. */
  readonly steering?: readonly string[];
  /** With `pricing`: what this turn's usage cost, in US dollars. */
  readonly costUsd?: number;
}

export interface DispatchResult<T = unknown> {
  readonly dispatchId: string;
  readonly label?: string;
  /** Final text of the last turn. */
  readonly text: string;
  readonly turns: readonly DispatchTurn[];
  /** Sum over every turn. */
  readonly usage: Usage;
  /** With `pricing`: the sum of the turns' `costUsd` (absent when no turn could be priced). */
  readonly costUsd?: number;
  /** An end marker was found (always true when `until` is `[]`). */
  readonly completed: boolean;
  /** Commits the agent made (baseline..HEAD), oldest first. */
  readonly commits: readonly string[];
  /** The branch holding the commits: the host branch after an integration. */
  readonly branch: string | undefined;
  /** The agent's work branch (differs from `branch` after an integration). */
  readonly workBranch: string | undefined;
  /** Where the agent worked. */
  readonly directory: string;
  /** True when a managed worktree was left in place at close (false for `current`: there is none). */
  readonly workspaceKept: boolean;
  /** The last captured conversation, when the agent has storage. */
  readonly conversation?: ConversationRecord;
  readonly conversationId?: string;
  /** Why the last turn's conversation was not captured (then it cannot be continued); absent when it was. */
  readonly conversationError?: ConversationError;
  readonly observerErrors: readonly ObserverError[];
  readonly durationMs: number;
  /** The validated value, with `response` (typed from its schema). */
  readonly value?: T;
  /** With `response`: the rejected attempts before the accepted one (empty when the first answer was valid). */
  readonly responseAttempts?: readonly ResponseAttempt[];
  /** With a fallback agent: which candidate answered and why the others were skipped. */
  readonly fallback?: FallbackReport;
  /** The journal's reference (its index key and revision), unless logging was false or "stdout". */
  readonly journal?: TransportReference;
  /** What a replay agent reported under `divergence: "warn"`; empty otherwise. */
  readonly divergences?: readonly ReplayDivergence[];
  /** With `watchdog`: what it found (warned or steered), in order; absent when it found nothing. */
  readonly watchdog?: readonly WatchdogReport[];
}

/** What a failed dispatch leaves behind; attached as `details.recovery` to its error. */
export interface DispatchRecovery {
  readonly dispatchId: string;
  readonly branch: string | undefined;
  readonly directory: string;
  readonly commits: readonly string[];
  readonly conversation?: ConversationRecord;
  readonly conversationId?: string;
  /** The phase that failed. */
  readonly phase: string;
  /** Remote placement: where the sandbox's commits were rescued (a verified bundle and a backup of the host). */
  readonly recoveryLocation?: string;
  /** Remote placement: the command that restores the rescued commits as a branch of their own. */
  readonly restore?: string;
}
