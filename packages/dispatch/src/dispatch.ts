import { lstat, rm } from "node:fs/promises";
import { addUsage, type TransportReference, type Usage } from "@outpost/core";
import type { DispatchOptions, DispatchResult } from "./dispatch-options.js";
import type { ResponseSpec } from "./response/response-spec.js";
import { commitsSince } from "./git/repository.js";
import { discardWorkspace } from "./workspace/discard-workspace.js";
import { withRecovery } from "./errors/with-recovery.js";
import { rejectionFor } from "./errors/abort-reason.js";
import { note, type DispatchState, type StageName } from "./stages/dispatch-state.js";
import { prepare } from "./stages/prepare-stage.js";
import { workspaceStage } from "./stages/workspace-stage.js";
import { sandboxStage } from "./stages/sandbox-stage.js";
import { seedStage } from "./stages/seed-stage.js";
import { turnsStage } from "./stages/turns-stage.js";
import { syncBackStage } from "./stages/sync-back-stage.js";
import { collectStage } from "./stages/collect-stage.js";
import { integrateStage } from "./stages/integrate-stage.js";
import { closeStage } from "./stages/close-stage.js";
import { abandonSandbox } from "./stages/abandon-sandbox.js";
import { attachDispatchSteering } from "./steering/attach-dispatch-steering.js";
import { holdSteering, type HeldSteering } from "./steering/held-steering.js";
import { withReplayBrief } from "./replay/replay-brief.js";
import { reportCommits } from "./observe/report-commits.js";
import { guardedAfter, guardedBefore } from "./guard/guard-stages.js";
import { createRedactor } from "./redact/redactor.js";
import { assertRedaction } from "./redact/redact-options.js";
import { redactError } from "./redact/redact-error.js";
import { totalCost } from "./cost/turn-cost.js";

/** The stages after `prepare`, in order; each has one job and reads and extends the shared state. */
const STAGES: readonly (readonly [StageName, (state: DispatchState) => Promise<void>])[] = [
  ["workspace", workspaceStage],
  ["sandbox", sandboxStage],
  ["seed", seedStage],
  ["turns", turnsStage],
  ["syncBack", guardedAfter(syncBackStage)],
  ["collect", collectStage],
  ["integrate", guardedBefore(integrateStage)],
  ["close", closeStage],
];

/**
 * Hands a brief to an agent in a sandbox on a branch of the host repository, and returns its answer,
 * its commits and its conversation. `prepare` checks the options, expands the brief and locates a
 * continuation before anything is allocated; a failure in `workspace` discards what it created; after
 * that, every failure carries recovery details (its phase is the stage's name) and keeps the worktree.
 */
export async function dispatch<T>(
  options: DispatchOptions & { readonly response: ResponseSpec<T> },
): Promise<DispatchResult<T> & { readonly value: T }>;
export async function dispatch(options: DispatchOptions): Promise<DispatchResult>;
export async function dispatch(options: DispatchOptions): Promise<DispatchResult> {
  let held: HeldSteering | undefined;
  // Until the option is checked, nothing to redact; prepare adds the agent's credential values to it.
  let redactor = createRedactor(undefined);
  try {
    assertRedaction((options as DispatchOptions | undefined)?.redact);
    redactor = createRedactor(options.redact);
    // Taken now: instructions sent from this moment wait for the first turn that can take them.
    held = holdSteering((options as DispatchOptions | undefined)?.steering);
    return await runStages(await prepare(withReplayBrief(options), redactor), held);
  } catch (error) {
    held?.release("the dispatch failed before the instruction was delivered");
    // A cancelled dispatch rejects with the signal's reason; dispatchAbortError(reason) keeps the details.
    throw redactError(redactor, rejectionFor(error, (options as DispatchOptions | undefined)?.signal));
  }
}

async function runStages(state: DispatchState, held: HeldSteering | undefined): Promise<DispatchResult> {
  try {
    attachDispatchSteering(state, held);
    for (const [name, stage] of STAGES) {
      enter(state, name);
      await stage(state);
    }
    state.observers.diagnostic(`timing: ${state.phase} ${Date.now() - state.phaseStarted} ms`);
    reportCommits(state);
    const journal = await state.journal
      ?.close("complete")
      .catch((closing: unknown) =>
        state.observers.warn(`The journal is incomplete: ${closing instanceof Error ? closing.message : String(closing)}`),
      );
    const value = result(state, journal ?? undefined);
    await finish(state);
    return value;
  } catch (error) {
    await abandonSandbox(state, error);
    // What was journaled stays readable; a journal that cannot be closed is a warning, never the failure.
    await state.journal
      ?.close("failed")
      .catch((closing: unknown) =>
        state.observers.warn(`Could not close the journal: ${closing instanceof Error ? closing.message : String(closing)}`),
      );
    const rejection = await failed(state, error);
    await finish(state, rejection);
    throw rejection;
  } finally {
    state.steering?.detach("the dispatch ended before the instruction was delivered");
    state.releaseWorkspace?.();
    // Independent clean-ups: each runs even when another fails.
    await Promise.allSettled([
      state.claim?.release(),
      state.reservation?.release(),
      rm(state.staging, { recursive: true, force: true }),
    ]).then(rethrowFirstFailure);
  }
}

/** Ends the spans and reports the end to the observation hub, then waits for its listeners. */
async function finish(state: DispatchState, error?: unknown): Promise<void> {
  const code = (error as { code?: unknown } | undefined)?.code;
  state.spans.annotate({ "outpost.turns": state.turns.length, "outpost.commits": state.commits.length });
  state.spans.end(error);
  state.observers.emit({
    type: "dispatch-end",
    dispatchId: state.dispatchId,
    label: state.options.label,
    ok: error === undefined,
    ...(typeof code === "string" ? { code } : {}),
    durationMs: Date.now() - state.started,
    timestamp: new Date().toISOString(),
  });
  await state.observers.drain();
}

/** Names the stage errors carry from now on, and reports how long the previous one took (diagnostic). */
function enter(state: DispatchState, next: StageName): void {
  const now = Date.now();
  state.observers.diagnostic(`timing: ${state.phase} ${now - state.phaseStarted} ms`);
  state.phase = next;
  state.phaseStarted = now;
  state.spans.enter(next);
  // The record says where the dispatch is, so `outpost ps` shows a dead one's true phase (no record yet: a no-op).
  state.recorded.push(note(state, state.activity.update({ phase: next })));
}

async function failed(state: DispatchState, error: unknown): Promise<unknown> {
  const { workspace, activity, observers } = state;
  // Before the agent ran, a failure leaves nothing worth keeping: what this dispatch created goes.
  if (!workspace || state.phase === "workspace") {
    if (workspace)
      await discardWorkspace(workspace).catch((cause: unknown) =>
        observers.warn(`Could not remove the worktree ${workspace.directory}: ${String(cause)}.`),
      );
    // `git worktree add` failed or was cut off: what it may have half made stays on record for `outpost clean`.
    const planned = !workspace && state.planned;
    const half = planned && (await lstat(planned.directory).catch(() => undefined)) !== undefined;
    await (half ? activity.fail(state.phase, describe(error)) : activity.remove()).catch(() => undefined);
    return error;
  }
  // The record outlives the dispatch when something is left for `outpost ps`, `clean` and `recover`: a clean-up
  // that failed, or the worktree or branch this dispatch created and kept for recovery.
  const left =
    state.cleanupFailed ||
    (workspace.created && (await lstat(workspace.directory).catch(() => undefined)) !== undefined) ||
    (workspace.branchCreated === true && workspace.branch !== undefined);
  await (left ? activity.fail(state.phase, describe(error)) : activity.remove()).catch(() => undefined);
  const commits = await commitsSince(workspace.directory, workspace.baseline).catch(() => []);
  return withRecovery(error, {
    dispatchId: state.dispatchId,
    branch: workspace.branch,
    directory: workspace.directory,
    commits,
    conversation: state.conversation,
    conversationId: state.conversationId,
    phase: state.phase,
    ...(state.rescued ? { recoveryLocation: state.rescued.location, restore: state.rescued.restore } : {}),
  });
}

function result(state: DispatchState, journal: TransportReference | undefined): DispatchResult {
  const workspace = state.workspace!;
  const last = state.turns[state.turns.length - 1];
  return {
    dispatchId: state.dispatchId,
    label: state.options.label,
    text: last?.text ?? "",
    turns: state.turns,
    usage: state.turns.reduce<Usage>((sum, turn) => addUsage(sum, turn.usage), {}),
    ...costOfTurns(state),
    // A typed response that validated completes the dispatch as a marker would.
    completed:
      state.resolved.markers.length === 0 || state.turns.some((turn) => turn.marker !== undefined) || state.resolved.response !== undefined,
    commits: [...state.commits],
    branch: state.resultBranch,
    workBranch: workspace.branch,
    directory: workspace.directory,
    workspaceKept: state.closed?.kept ?? true,
    conversation: state.conversation,
    conversationId: state.conversationId,
    ...(state.conversationError ? { conversationError: state.conversationError } : {}),
    observerErrors: state.observers.errors,
    durationMs: Date.now() - state.started,
    ...(state.resolved.response ? { value: state.value, responseAttempts: state.responseAttempts ?? [] } : {}),
    ...(state.fallback ? { fallback: state.fallback } : {}),
    ...(journal ? { journal } : {}),
    divergences: [...state.divergences],
    ...(state.watchdog ? { watchdog: [...state.watchdog] } : {}),
  };
}

function rethrowFirstFailure(results: readonly PromiseSettledResult<unknown>[]): void {
  const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failed) throw failed.reason as Error;
}

function describe(error: unknown): { code: string; message: string } {
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "process";
  return { code, message: error instanceof Error ? error.message : String(error) };
}

function costOfTurns(state: DispatchState): { costUsd?: number } {
  const costUsd = totalCost(state.turns);
  return costUsd === undefined ? {} : { costUsd };
}
