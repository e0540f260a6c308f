import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import {
  addUsage,
  assertSpecificationVersion,
  isOutpostError,
  throwIfAborted,
  type ConversationContext,
  type ConversationRecord,
  type SandboxLease,
  type Usage,
} from "@outpost/core";
import type { DispatchOptions, DispatchResult, DispatchTurn } from "./dispatch-options.js";
import { resolveOptions } from "./options/resolve-options.js";
import { Observers } from "./observe/observers.js";
import { commitsSince, findRepository } from "./git/repository.js";
import { FALLBACK_IDENTITY, resolveIdentity } from "./git/git-identity.js";
import { resolveBrief } from "./brief/resolve-brief.js";
import { locateContinuation } from "./conversation/continuation.js";
import { captureConversation } from "./conversation/capture-conversation.js";
import { reserveStorage, type StorageReservation } from "./quota/storage-quota.js";
import { openWorkspace } from "./workspace/open-workspace.js";
import { claimNamedBranch } from "./workspace/named-claim.js";
import type { FileLock } from "./workspace/file-lock.js";
import { applyCopies } from "./workspace/copies.js";
import { closeWorkspace } from "./workspace/close-workspace.js";
import { integrateBranch } from "./workspace/integrate-branch.js";
import type { Workspace } from "./workspace/workspace.js";
import { runHostHooks, runSandboxHooks } from "./hooks/run-hooks.js";
import { createActivityLog } from "./activity/activity-log.js";
import { DISPATCH_ID_VARIABLE } from "./activity/activity-record.js";
import { findDispatchProcesses } from "./activity/dispatch-processes.js";
import { currentProcess } from "./ownership/process-identity.js";
import { discardWorkspace } from "./workspace/discard-workspace.js";
import { writeHomeFiles } from "./turn/home-files.js";
import { runTurn } from "./turn/run-turn.js";
import { assertArgumentsFit } from "./turn/argument-limit.js";
import { agentVariables } from "./turn/agent-variables.js";
import { readEnvFile } from "./turn/env-file.js";
import { withRecovery } from "./errors/with-recovery.js";
import { rejectionFor } from "./errors/abort-reason.js";
import { openGitBoundary } from "./git/git-boundary.js";

/**
 * Hands a brief to an agent in a sandbox on a branch of the host repository, and returns its answer,
 * its commits and its conversation. Options are checked, the brief expanded and a continuation located
 * before anything is allocated; after that, every failure carries recovery details and keeps the worktree.
 */
export async function dispatch(options: DispatchOptions): Promise<DispatchResult> {
  try {
    return await runDispatch(options);
  } catch (error) {
    // A cancelled dispatch rejects with the signal's reason; dispatchAbortError(reason) keeps the details.
    throw rejectionFor(error, (options as DispatchOptions | undefined)?.signal);
  }
}

async function runDispatch(options: DispatchOptions): Promise<DispatchResult> {
  const started = Date.now();
  const resolved = resolveOptions(options);
  const { agent, sandboxProvider: provider, signal } = options;
  throwIfAborted(signal, "The dispatch");
  const dispatchId = randomUUID();
  const observers = new Observers(options);
  if (resolved.timers.idleWarningMs >= resolved.timers.idleMs)
    observers.warn(
      `No idle warning will be emitted: idleWarningMs (${resolved.timers.idleWarningMs}) is not below idleMs (${resolved.timers.idleMs}). Set idleWarningMs below idleMs to be warned before a silent agent is stopped.`,
    );
  // The identity is read where the caller pointed, in parallel with finding the checkout root.
  const identityLookup = resolveIdentity(resolved.repository).catch(() => FALLBACK_IDENTITY);
  const repository = await findRepository(resolved.repository);
  const root = repository.root;
  const [prompt, continued, identity, envFile] = await Promise.all([
    resolveBrief({
      brief: options.brief,
      root,
      expansionMs: resolved.expansionMs,
      signal,
      diagnostic: (message) => observers.diagnostic(message),
    }),
    options.continuation ? locateContinuation(agent, options.continuation.id, root, options.conversationHome) : undefined,
    identityLookup,
    readEnvFile(root),
  ]);
  // Every agent process carries the dispatch's id, so `outpost clean` finds its orphans after a crash.
  const variables = { ...agentVariables(agent, provider, identity, envFile), [DISPATCH_ID_VARIABLE]: dispatchId };
  assertArgumentsFit(agent, prompt);
  throwIfAborted(signal, "The dispatch");

  const staging = await mkdtemp(join(tmpdir(), "outpost-staging-"));
  const reservation: StorageReservation | undefined = options.storageQuota
    ? await reserveStorage(root, options.storageQuota, dispatchId, (message) => observers.warn(message)).catch(async (error: unknown) => {
        await rm(staging, { recursive: true, force: true });
        throw error;
      })
    : undefined;
  const activity = createActivityLog(root, dispatchId, options.activityTransport);
  const note = (write: Promise<void>): Promise<void> =>
    write.catch((error: unknown) => observers.warn(`Could not write the activity record: ${String(error)}.`));
  await note(
    activity.start({
      dispatchId,
      label: options.label,
      agent: agent.name,
      provider: provider.name,
      repository: root,
      directory: root,
      pid: process.pid,
      runner: currentProcess(),
      startedAt: new Date(started).toISOString(),
      state: "running",
      phase: "prepare",
      mode: resolved.branch.mode,
      staging,
    }),
  );
  let phase = "prepare";
  let phaseStarted = started;
  // Each phase change reports how long the previous one took (diagnostic), and names the phase errors carry.
  const enter = (next: string): void => {
    const now = Date.now();
    observers.diagnostic(`timing: ${phase} ${now - phaseStarted} ms`);
    phase = next;
    phaseStarted = now;
  };
  enter("workspace");
  let workspace: Workspace | undefined;
  let conversation: ConversationRecord | undefined;
  let conversationId = options.continuation?.id;
  const turns: DispatchTurn[] = [];
  let claim: FileLock | undefined;
  // Set while releasing, importing and closing, and when the failure path could not release the sandbox.
  let cleanupFailed = false;
  try {
    if (resolved.branch.mode === "named") claim = await claimNamedBranch(root, resolved.branch.name, dispatchId);
    workspace = await openWorkspace({ repository, policy: resolved.branch, dispatchId, label: options.label, signal });
    // Bookkeeping writes overlap the next steps; all of them are on disk before the agent starts.
    const recorded: Promise<void>[] = [];
    recorded.push(
      note(
        activity.update({
          directory: workspace.directory,
          branch: workspace.branch,
          worktreeCreated: workspace.created,
          branchCreated: workspace.branchCreated === true,
          baseline: workspace.baseline,
          ...(workspace.target ? { target: workspace.target } : {}),
        }),
      ),
    );
    if (workspace.created && resolved.copies.length > 0) {
      enter("copies");
      workspace = { ...workspace, untrackedCopies: await applyCopies(root, workspace.directory, resolved.copies) };
    }
    const ws = workspace;
    if (ws.created) {
      enter("workspaceReady");
      await runHostHooks("workspaceReady", options.hooks?.workspaceReady ?? [], ws.directory, signal);
    }
    enter("sandbox");
    throwIfAborted(signal, "The dispatch");
    // The sandbox never writes the host's git directory; what it committed is imported after release.
    const boundary = await openGitBoundary(ws, provider.placement);
    const lease = await provider
      .acquire({ repository: root, directory: ws.directory, ...boundary.context, variables: {}, signal })
      .catch(async (error: unknown) => {
        await boundary.dispose();
        throw error;
      });
    const closeBoundary = async (): Promise<void> => {
      const { restored } = await boundary.close(dispatchId);
      if (restored.length > 0)
        observers.warn(
          `The agent changed git control files of the repository; each was restored as it was before the turn: ${restored.join(", ")}.`,
        );
    };
    const context: ConversationContext = {
      repository: root,
      sandbox: lease,
      staging,
      home: options.conversationHome,
      local: provider.placement === "host",
      warn: (message) => observers.warn(message),
      signal,
    };
    try {
      assertSpecificationVersion(lease, "sandbox lease");
      const container = (lease as { containerId?: unknown }).containerId;
      recorded.push(
        note(
          activity.update({
            phase: "sandbox",
            ...(typeof container === "string" ? { container } : {}),
            ...(boundary.context.git ? { sandboxGit: boundary.context.git.directory } : {}),
            ...(provider.placement === "host" && /^outpost-home-/.test(basename(lease.home)) ? { home: lease.home } : {}),
          }),
        ),
      );
      enter("hooks");
      await Promise.all([
        runHostHooks("hostReady", options.hooks?.hostReady ?? [], ws.directory, signal),
        runSandboxHooks(options.hooks?.sandboxReady ?? [], lease, signal),
        ...recorded,
      ]);
      if (continued) {
        enter("restore");
        await agent.storage!.restore(continued, context);
      }
      for (let pass = 1; pass <= resolved.passes; pass += 1) {
        enter(`turn ${pass}`);
        throwIfAborted(signal, "The dispatch");
        const turn = runTurnFor(pass);
        const outcome = await turn(lease);
        conversationId = outcome.conversationId ?? conversationId;
        enter(`capture ${pass}`);
        const captured = await captureConversation(agent, outcome.conversationId, context, (message) => observers.warn(message));
        conversation = captured.record ?? conversation;
        turns.push({
          pass,
          text: outcome.text,
          usage: captured.usage ?? outcome.usage,
          conversationId: outcome.conversationId,
          marker: outcome.marker,
          settled: outcome.settled,
          durationMs: outcome.durationMs,
        });
        if (outcome.marker) break;
      }
    } catch (error) {
      // Save what the failed turn said, so the conversation can be continued from the recovery details.
      if (conversationId && conversation?.id !== conversationId && !isOutpostError(error, "session")) {
        // Without the dispatch's signal: after an abort the capture must still run (bounded by its own deadline).
        const rescue = { ...context, signal: AbortSignal.timeout(60_000) };
        const rescued = await captureConversation(agent, conversationId, rescue, (message) => observers.warn(message)).catch(
          (): { record?: ConversationRecord } => ({}),
        );
        conversation = rescued.record;
      }
      await lease.release().catch((releasing: unknown) => {
        cleanupFailed = true;
        observers.warn(`After the failure, the sandbox could not be released: ${String(releasing)}`);
      });
      await closeBoundary().catch((closing: unknown) => {
        cleanupFailed = true;
        observers.warn(`After the failure, ${String(closing)}`);
      });
      throw error;
    }
    enter("release");
    cleanupFailed = true;
    await lease.release();
    enter("import");
    await closeBoundary();
    cleanupFailed = false;

    // Listing the agent's commits and integrating them are independent: an integration with nothing to
    // merge returns "up-to-date" at once.
    enter(ws.mode === "integrate" ? "integrate" : "commits");
    const [commits] = await Promise.all([
      commitsSince(ws.directory, ws.baseline),
      ws.mode === "integrate" ? integrateBranch(ws, identity, signal, (message) => observers.warn(message)) : undefined,
    ]);
    const branch = ws.mode === "integrate" ? ws.target : ws.branch;
    enter("close");
    cleanupFailed = true;
    const closed = ws.mode === "current" ? { kept: false } : await closeWorkspace(ws, { deleteBranch: ws.mode === "integrate" });
    cleanupFailed = false;
    if (closed.kept && ws.created && "reason" in closed && closed.reason)
      observers.warn(`Kept the worktree ${ws.directory}: ${closed.reason}.`);
    // A kept worktree stays listed (`outpost ps`) until it is recovered or cleaned; otherwise nothing is left to find.
    await (closed.kept && ws.created
      ? note(activity.update({ state: "finished", phase: "close" }))
      : activity.remove().catch((error: unknown) => observers.warn(`Could not remove the activity record: ${String(error)}.`)));
    enter("done");
    const last = turns[turns.length - 1];
    return {
      dispatchId,
      label: options.label,
      text: last?.text ?? "",
      turns,
      usage: turns.reduce<Usage>((sum, turn) => addUsage(sum, turn.usage), {}),
      completed: resolved.markers.length === 0 || turns.some((turn) => turn.marker !== undefined),
      commits,
      branch,
      workBranch: ws.branch,
      directory: ws.directory,
      workspaceKept: closed.kept,
      conversation,
      conversationId,
      observerErrors: observers.errors,
      durationMs: Date.now() - started,
    };
  } catch (error) {
    // Before the agent ran, a failure leaves nothing worth keeping: what this dispatch created goes.
    if (!workspace || phase === "workspace" || phase === "copies" || phase === "workspaceReady") {
      if (workspace)
        await discardWorkspace(workspace).catch((cause: unknown) =>
          observers.warn(`Could not remove the worktree ${workspace!.directory}: ${String(cause)}.`),
        );
      await activity.remove().catch(() => undefined);
      throw error;
    }
    // The record outlives the dispatch only when cleaning up failed: then something may still need `outpost clean`.
    await (cleanupFailed ? activity.fail(phase, describe(error)) : activity.remove()).catch(() => undefined);
    const commits = await commitsSince(workspace.directory, workspace.baseline).catch(() => []);
    throw withRecovery(error, {
      dispatchId,
      branch: workspace.branch,
      directory: workspace.directory,
      commits,
      conversation,
      conversationId,
      phase,
    });
  } finally {
    // Independent clean-ups: each runs even when another fails.
    await Promise.allSettled([claim?.release(), reservation?.release(), rm(staging, { recursive: true, force: true })]).then(
      rethrowFirstFailure,
    );
  }

  function runTurnFor(pass: number) {
    return async (lease: SandboxLease) => {
      const turn = {
        prompt,
        root: lease.root,
        home: lease.home,
        model: options.model,
        resume: options.continuation ? { id: options.continuation.id, fork: options.continuation.fork } : undefined,
      };
      await writeHomeFiles(lease, agent.homeFiles?.(turn) ?? [], staging, signal);
      let located = false;
      return runTurn({
        agent,
        lease,
        turn,
        timers: resolved.timers,
        markers: resolved.markers,
        variables,
        signal,
        onEvent: (event) => {
          if (!located && provider.placement === "host") {
            located = true;
            void findDispatchProcesses(dispatchId).then((found) => {
              const leader = found.find((entry) => entry.pid === entry.processGroup);
              if (leader) return note(activity.update({ agentProcessGroup: leader.processGroup }));
            });
          }
          if (event.type === "conversation") conversationId = event.id;
          observers.observe({ dispatchId, label: options.label, pass, timestamp: new Date().toISOString(), event });
        },
        onDiagnostic: (message) => observers.diagnostic(message),
        onIdleWarning: (silentMs) =>
          observers.warn(
            `${options.label ?? agent.name}: no output from ${agent.name} for ${Math.round(silentMs / 1000)} s (pass ${pass}); it is stopped after ${Math.round(resolved.timers.idleMs / 1000)} s of silence.`,
          ),
      });
    };
  }
}

function rethrowFirstFailure(results: readonly PromiseSettledResult<unknown>[]): void {
  const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failed) throw failed.reason as Error;
}

function describe(error: unknown): { code: string; message: string } {
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "process";
  return { code, message: error instanceof Error ? error.message : String(error) };
}
