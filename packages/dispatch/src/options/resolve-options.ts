import { OutpostError, assertSpecificationVersion, type AgentAdapter, type ReplayAgent } from "@outpost/core";
import { candidatesOf, isFallbackAgent } from "../fallback/fallback-agent.js";
import { resolveResponse, type ResolvedResponse } from "../response/resolve-response.js";
import { checkLogging } from "../journal/logging.js";
import type { ProvidedOptions } from "../dispatch-options.js";
import { assertBranchPolicy, type BranchPolicy } from "../workspace/branch-policy.js";
import { validateCopies } from "../workspace/copies.js";
import { assertProviderHonours, branchPolicyFor } from "./provider-fit.js";
import { resolveMarkers } from "../turn/markers.js";
import { assertCanRequireConversation } from "./require-conversation.js";
import type { TurnTimerSettings } from "../timers/turn-timers.js";
import { checkMilliseconds } from "../timers/timer-limit.js";
import { resolveLimits, type ResolvedLimits } from "./stage-limits.js";
import { resolveBootstrap, type ResolvedBootstrap } from "../bootstrap/resolve-bootstrap.js";
import { sharedWorkspaceOf, type SharedWorkspace } from "../workspace/shared-workspace.js";
import { assertDiffGuard } from "../guard/diff-guard.js";
import { assertPricing } from "../cost/pricing.js";
import { assertWatchdog } from "../watchdog/watchdog-options.js";
import { assertRedaction } from "../redact/redact-options.js";

export const DISPATCH_DEFAULTS = Object.freeze({
  passes: 1,
  idleMs: 600_000,
  idleWarningMs: 60_000,
  settleMs: 60_000,
  deadlineMs: 3_600_000,
  expansionMs: 30_000,
});

export interface ResolvedOptions {
  readonly passes: number;
  readonly markers: readonly string[];
  readonly timers: TurnTimerSettings;
  readonly expansionMs: number;
  readonly branch: BranchPolicy;
  readonly copies: readonly string[];
  readonly repository: string;
  /** The agents that may run the brief, in order: one, or a fallback chain's candidates. */
  readonly candidates: readonly (AgentAdapter | ReplayAgent)[];
  readonly response?: ResolvedResponse<unknown>;
  readonly limits: ResolvedLimits;
  readonly bootstrap: ResolvedBootstrap;
  /** The `workspace` option's record: the dispatch works in it and leaves it open. */
  readonly shared?: SharedWorkspace;
}

/** Applies defaults and refuses inconsistent options before anything is allocated (code `configuration`). */
export function resolveOptions(options: ProvidedOptions): ResolvedOptions {
  if (!options || typeof options !== "object")
    throw configuration("dispatch() needs an options object with agent, brief and sandboxProvider.");
  const { sandboxProvider } = options;
  const given: unknown = options.agent;
  const replay = (given as { kind?: unknown } | undefined)?.kind === "replay" && typeof (given as ReplayAgent).nextTurn === "function";
  if (isFallbackAgent(options.agent) && options.continuation)
    throw configuration(
      `A fallback agent (${options.agent.name}) cannot continue a conversation: each candidate keeps its own. Continue with the agent that answered (result.fallback.agent).`,
    );
  const candidates: readonly (AgentAdapter | ReplayAgent)[] = replay
    ? [given as ReplayAgent]
    : options.agent
      ? // A custom agent is an adapter by now (with-custom-agent.ts); anything else not "cli" is refused below.
        (candidatesOf(options.agent as Exclude<ProvidedOptions["agent"], ReplayAgent>) as readonly AgentAdapter[])
      : [];
  if (candidates.length === 0)
    throw configuration(
      "agent must be an AgentAdapter (for example claudeAgent()), a custom agent (createAgent()), a createFallbackAgent() chain or a replay agent (createReplayAgent()).",
    );
  for (const candidate of candidates) {
    if (candidate.kind === "replay") continue;
    if (!candidate || candidate.kind !== "cli" || typeof candidate.command !== "function" || typeof candidate.createDecoder !== "function")
      throw configuration("agent must be an AgentAdapter (for example claudeAgent()). Pass the agent that should run the brief.");
    assertSpecificationVersion(candidate, "agent adapter");
    if (candidate.storage) assertSpecificationVersion(candidate.storage, "conversation store");
  }
  const agent = candidates[0]!;
  if (!sandboxProvider || typeof sandboxProvider.acquire !== "function") {
    throw configuration(
      "sandboxProvider must be a SandboxProvider (for example localProvider() or dockerProvider()), or be left out to use the Docker provider.",
    );
  }
  // Contract versions are checked in one place, before anything is allocated.
  checkLogging(options.logging);
  assertDiffGuard(options.guard);
  assertPricing(options.pricing);
  assertWatchdog(options.watchdog, options.steering);
  assertRedaction(options.redact);
  assertSpecificationVersion(sandboxProvider, "sandbox provider");
  if (options.activityTransport) assertSpecificationVersion(options.activityTransport, "transport");
  if (options.recoveryTransport) assertSpecificationVersion(options.recoveryTransport, "transport");
  assertProviderHonours(options);
  const passes = positiveInteger("passes", options.passes ?? DISPATCH_DEFAULTS.passes);
  const timers: TurnTimerSettings = {
    idleMs: checkMilliseconds("idleMs", options.idleMs ?? DISPATCH_DEFAULTS.idleMs, 1),
    idleWarningMs: checkMilliseconds("idleWarningMs", options.idleWarningMs ?? DISPATCH_DEFAULTS.idleWarningMs, 1),
    settleMs: checkMilliseconds("settleMs", options.settleMs ?? DISPATCH_DEFAULTS.settleMs, 0),
    deadlineMs: checkMilliseconds("deadlineMs", options.deadlineMs ?? DISPATCH_DEFAULTS.deadlineMs, 1),
  };
  // A warning interval that can never elapse before the idle stop is a mistake when both are given;
  // when only idleMs is, dispatch() says once that no idle warning will come.
  if (options.idleWarningMs !== undefined && options.idleMs !== undefined && timers.idleWarningMs >= timers.idleMs) {
    throw configuration(
      `idleWarningMs (${timers.idleWarningMs}) must be less than idleMs (${timers.idleMs}), or no idle warning could ever be emitted. Lower idleWarningMs or raise idleMs.`,
    );
  }
  const expansionMs = checkMilliseconds("expansionMs", options.expansionMs ?? DISPATCH_DEFAULTS.expansionMs, 1);
  // Hook deadlines are timers too: refused now rather than after the worktree exists.
  for (const [phase, hooks] of Object.entries(options.hooks ?? {})) {
    for (const hook of (hooks as readonly unknown[] | undefined) ?? []) {
      const deadline = (hook as { deadlineMs?: unknown } | null)?.deadlineMs;
      if (typeof hook === "object" && deadline !== undefined) checkMilliseconds(`hooks.${phase} deadlineMs`, deadline, 1);
    }
  }
  assertCanRequireConversation(options.requireConversation, candidates);
  const markers = resolveMarkers(options.until);
  const continuation = options.continuation;
  if (continuation) {
    if (typeof continuation.id !== "string" || continuation.id.trim() === "")
      throw configuration("continuation.id must be the native id of a conversation. Use the conversationId of an earlier result.");
    if (passes !== 1) throw configuration(`continuation needs passes: 1 (got ${passes}): each pass would start a new conversation.`);
    // Only an explicit false refuses: an omitted flag means the agent is asked to try.
    // The agent names the CLI version that can, when its own version cannot.
    if (agent.resumable === false)
      throw configuration(
        (agent.kind === "cli" ? agent.unsupported?.("continuation") : undefined) ??
          `${agent.name} cannot continue a conversation. Drop continuation or use an agent that can resume.`,
      );
    if (continuation.fork && agent.forkable === false)
      throw configuration(
        (agent.kind === "cli" ? agent.unsupported?.("fork") : undefined) ??
          `${agent.name} cannot fork a conversation. Continue it without fork: true.`,
      );
    // Every sandbox starts without the conversation, so continuing means restoring it from storage.
    if (!agent.storage)
      throw configuration(
        `${agent.name} has no conversation storage, so conversation ${continuation.id} cannot be restored into a new sandbox. Give the agent a storage (a ConversationStore) or drop continuation.`,
      );
  }
  const shared = options.workspace !== undefined ? sharedWorkspaceFor(options) : undefined;
  if (options.branch !== undefined) assertBranchPolicy(options.branch);
  const branch: BranchPolicy = branchPolicyFor(shared ? { ...options, branch: shared.policy } : options);
  const copies = validateCopies(options.copies ?? [], branch.mode);
  // Correction turns resume the conversation of whichever candidate answered: each must be able to.
  const response = options.response
    ? resolveResponse(options.response, {
        passes,
        agentName: candidates.find((candidate) => candidate.resumable === false)?.name ?? agent.name,
        resumable: candidates.every((candidate) => candidate.resumable !== false),
      })
    : undefined;
  return {
    passes,
    markers,
    timers,
    expansionMs,
    branch,
    copies,
    repository: shared?.root ?? options.repository ?? process.cwd(),
    candidates,
    limits: resolveLimits(options.limits),
    bootstrap: resolveBootstrap(options.bootstrap, candidates),
    ...(response ? { response } : {}),
    ...(shared ? { shared } : {}),
  };
}

/** The workspace decides where and on which branch the agent works: options that would say otherwise are refused. */
function sharedWorkspaceFor(options: ProvidedOptions): SharedWorkspace {
  const shared = sharedWorkspaceOf(options.workspace);
  const clashing = (["repository", "branch", "copies", "storageQuota"] as const).filter((name) => options[name] !== undefined);
  if (clashing.length > 0)
    throw configuration(
      `workspace cannot be combined with ${clashing.join(", ")}: the workspace already fixes its repository, branch, copies and storage reservation. Give them to openWorkspace() instead.`,
    );
  if (shared.holder !== undefined)
    throw configuration(
      `The workspace is already bound to the open sandbox of dispatch ${shared.holder}. Wait for that dispatch to end, or open another workspace.`,
    );
  return shared;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw configuration(`${name} must be a positive integer, got ${typeof value === "number" ? String(value) : JSON.stringify(value)}.`);
  return value;
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
