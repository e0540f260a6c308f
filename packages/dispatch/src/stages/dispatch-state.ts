import {
  OutpostError,
  type AgentAdapter,
  type ReplayAgent,
  type ReplayDivergence,
  type ConversationContext,
  type ConversationRecord,
  type SandboxLease,
} from "@outpost/core";
import type { DispatchTurn, ProvidedOptions } from "../dispatch-options.js";
import type { WorkspacePlan } from "../workspace/open-workspace.js";
import type { ResolvedOptions } from "../options/resolve-options.js";
import type { Observers } from "../observe/observers.js";
import type { Redactor } from "../redact/redactor.js";
import type { Repository } from "../git/repository.js";
import type { GitIdentity } from "../git/git-identity.js";
import type { GitBoundary } from "../git/git-boundary.js";
import type { ActivityLog } from "../activity/activity-log.js";
import type { StorageReservation } from "../quota/storage-quota.js";
import type { FileLock } from "../workspace/file-lock.js";
import type { Workspace } from "../workspace/workspace.js";
import type { ClosedWorkspace } from "../workspace/close-workspace.js";
import type { locateContinuation } from "../conversation/continuation.js";
import type { ConversationError } from "../conversation/conversation-error.js";
import type { FallbackReport } from "../fallback/run-with-fallback.js";
import type { ResponseAttempt } from "../response/response-spec.js";
import type { PendingChanges } from "../remote/pending-changes.js";
import type { RecoveryBackup } from "../remote/recovery-backup.js";
import type { DispatchSpans } from "../telemetry/dispatch-telemetry.js";
import type { JournalSink } from "../journal/logging.js";
import type { DispatchSteering } from "../steering/dispatch-steering.js";
import type { WatchdogReport } from "../watchdog/report-watchdog.js";

/** The name of each stage of a dispatch, in order; a failure's recovery `phase` is one of them. */
export type StageName = "prepare" | "workspace" | "sandbox" | "seed" | "turns" | "syncBack" | "collect" | "integrate" | "close";

/** The sandbox while it is held: released by the sync-back stage, or by the failure path. */
export interface HeldSandbox {
  readonly lease: SandboxLease;
  readonly boundary: GitBoundary;
  readonly context: ConversationContext;
}

/**
 * Everything the stages of one dispatch share. `prepare` fills the fixed part before anything is allocated;
 * each later stage adds what it produced.
 */
export interface DispatchState {
  readonly options: ProvidedOptions;
  readonly resolved: ResolvedOptions;
  readonly dispatchId: string;
  readonly started: number;
  readonly observers: Observers;
  /** The `redact` option with the agent's credential values: applied to what the dispatch stores or emits. */
  readonly redactor: Redactor;
  readonly repository: Repository;
  readonly prompt: string;
  readonly continued: Awaited<ReturnType<typeof locateContinuation>> | undefined;
  readonly identity: GitIdentity;
  /** The agent running now: the first candidate, then the one a fallback moved to. */
  agent: AgentAdapter | ReplayAgent;
  /** Variables of every process of each candidate agent. */
  readonly variables: Map<AgentAdapter | ReplayAgent, Readonly<Record<string, string>>>;
  /** Spans of the dispatch and its stages (inert without `telemetry`). */
  readonly spans: DispatchSpans;
  /** Host scratch directory, removed when the dispatch ends. */
  readonly staging: string;
  readonly reservation?: StorageReservation;
  readonly activity: ActivityLog;
  /** The stage running now: the phase a failure names. */
  phase: StageName;
  phaseStarted: number;
  claim?: FileLock;
  /** The worktree the workspace stage was about to create (on record before `git worktree add`). */
  planned?: WorkspacePlan;
  /** With the `workspace` option: frees it for the next dispatch (the dispatch never closes it). */
  releaseWorkspace?: () => void;
  workspace?: Workspace;
  sandbox?: HeldSandbox;
  /** Bookkeeping writes that must be on disk before the agent starts. */
  readonly recorded: Promise<void>[];
  conversation?: ConversationRecord;
  conversationId?: string;
  /** Why the last turn's conversation was not captured (reported by the result). */
  conversationError?: ConversationError;
  readonly turns: DispatchTurn[];
  commits: readonly string[];
  /** Remote placement: bytes of the git bundle the seed stage sent. */
  seededBytes?: number;
  /** Remote placement: what of the worktree was not committed when the sandbox was seeded. */
  pending?: PendingChanges;
  /** Remote placement: where a failure rescued the sandbox's commits. */
  rescued?: RecoveryBackup;
  /** The branch the result names: the target after an integration, else the work branch. */
  resultBranch?: string;
  closed?: ClosedWorkspace;
  /** With `response`: the validated value and the rejected attempts before it. */
  value?: unknown;
  responseAttempts?: readonly ResponseAttempt[];
  fallback?: FallbackReport;
  /** The `steering` option while it is attached to this dispatch. */
  steering?: DispatchSteering;
  /**
   * Remote placement: the lease's release, still running while the host verifies and applies the work it
   * brought back (nothing the engine reads comes from the sandbox any more). Awaited by `close`, or by the
   * failure path.
   */
  releasing?: Promise<void>;
  /** Set while a clean-up step runs whose failure may leave something for `outpost clean`. */
  cleanupFailed: boolean;
  /** Where this dispatch's records go (the `logging` option); absent with `logging: false`. */
  readonly journal?: JournalSink;
  /** Divergences a replay agent reported under `divergence: "warn"`. */
  readonly divergences: ReplayDivergence[];
  /** What the `watchdog` option found, in order; absent until it finds something. */
  watchdog?: WatchdogReport[];
}

/** Writes to the activity record never fail a dispatch: a failure is a warning. */
export function note(state: Pick<DispatchState, "observers">, write: Promise<void>): Promise<void> {
  return write.catch((error: unknown) => state.observers.warn(`Could not write the activity record: ${String(error)}.`));
}

/** The workspace, for stages that run after the workspace stage. */
export function workspaceOf(state: DispatchState): Workspace {
  if (!state.workspace)
    throw new OutpostError("workspace", `Stage ${state.phase} ran before the workspace stage; this is a bug in the engine.`);
  return state.workspace;
}

/** The held sandbox, for stages that run while it is held. */
export function sandboxOf(state: DispatchState): HeldSandbox {
  if (!state.sandbox) throw new OutpostError("provider", `Stage ${state.phase} ran without a sandbox; this is a bug in the engine.`);
  return state.sandbox;
}
