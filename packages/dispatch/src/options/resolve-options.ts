import { OutpostError, assertSpecificationVersion } from "@outpost/core";
import { checkLogging } from "../journal/logging.js";
import type { DispatchOptions } from "../dispatch-options.js";
import { assertBranchPolicy, type BranchPolicy } from "../workspace/branch-policy.js";
import { validateCopies } from "../workspace/copies.js";
import { assertProviderHonours, branchPolicyFor } from "./provider-fit.js";
import { resolveMarkers } from "../turn/markers.js";
import type { TurnTimerSettings } from "../timers/turn-timers.js";
import { checkMilliseconds } from "../timers/timer-limit.js";

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
}

/** Applies defaults and refuses inconsistent options before anything is allocated (code `configuration`). */
export function resolveOptions(options: DispatchOptions): ResolvedOptions {
  if (!options || typeof options !== "object")
    throw configuration("dispatch() needs an options object with agent, brief and sandboxProvider.");
  const { agent, sandboxProvider } = options;
  const replay = agent?.kind === "replay" && typeof agent.nextTurn === "function";
  if (!replay && (!agent || agent.kind !== "cli" || typeof agent.command !== "function" || typeof agent.createDecoder !== "function")) {
    throw configuration(
      "agent must be an AgentAdapter (for example claudeAgent()) or a replay agent (createReplayAgent()). Pass the agent that should run the brief.",
    );
  }
  if (!sandboxProvider || typeof sandboxProvider.acquire !== "function") {
    throw configuration("sandboxProvider is required: pass localProvider() or dockerProvider().");
  }
  // Contract versions are checked in one place, before anything is allocated.
  if (agent.kind === "cli") assertSpecificationVersion(agent, "agent adapter");
  checkLogging(options.logging);
  assertSpecificationVersion(sandboxProvider, "sandbox provider");
  if (agent.storage) assertSpecificationVersion(agent.storage, "conversation store");
  if (options.activityTransport) assertSpecificationVersion(options.activityTransport, "transport");
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
  if (options.branch !== undefined) assertBranchPolicy(options.branch);
  const branch: BranchPolicy = branchPolicyFor(options);
  const copies = validateCopies(options.copies ?? [], branch.mode);
  return { passes, markers, timers, expansionMs, branch, copies, repository: options.repository ?? process.cwd() };
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1)
    throw configuration(`${name} must be a positive integer, got ${typeof value === "number" ? String(value) : JSON.stringify(value)}.`);
  return value;
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
