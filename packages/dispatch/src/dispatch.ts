import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { addUsage, isOutpostError, throwIfAborted, type ConversationContext, type ConversationRecord, type SandboxLease, type Usage } from "@outpost/core";
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
import { writeHomeFiles } from "./turn/home-files.js";
import { runTurn } from "./turn/run-turn.js";
import { agentVariables } from "./turn/agent-variables.js";
import { withRecovery } from "./errors/with-recovery.js";
import { openGitBoundary } from "./git/git-boundary.js";

/**
 * Hands a brief to an agent in a sandbox on a branch of the host repository, and returns its answer,
 * its commits and its conversation. Options are checked, the brief expanded and a continuation located
 * before anything is allocated; after that, every failure carries recovery details and keeps the worktree.
 */
export async function dispatch(options: DispatchOptions): Promise<DispatchResult> {
  const started = Date.now();
  const resolved = resolveOptions(options);
  const { agent, sandboxProvider: provider, signal } = options;
  throwIfAborted(signal, "The dispatch");
  const dispatchId = randomUUID();
  const observers = new Observers(options);
  // The identity is read where the caller pointed, in parallel with finding the checkout root.
  const identityLookup = resolveIdentity(resolved.repository).catch(() => FALLBACK_IDENTITY);
  const repository = await findRepository(resolved.repository);
  const root = repository.root;
  const [prompt, continued, identity] = await Promise.all([
    resolveBrief({ brief: options.brief, root, expansionMs: resolved.expansionMs, signal, diagnostic: (message) => observers.diagnostic(message) }),
    options.continuation ? locateContinuation(agent, options.continuation.id, root, options.conversationHome) : undefined,
    identityLookup,
  ]);
  const variables = agentVariables(agent, provider, identity);
  throwIfAborted(signal, "The dispatch");

  const staging = await mkdtemp(join(tmpdir(), "outpost-staging-"));
  const reservation: StorageReservation | undefined = options.storageQuota
    ? await reserveStorage(root, options.storageQuota, dispatchId, (message) => observers.warn(message)).catch(async (error: unknown) => {
      await rm(staging, { recursive: true, force: true });
      throw error;
    })
    : undefined;
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
  try {
    if (resolved.branch.mode === "named") claim = await claimNamedBranch(root, resolved.branch.name, dispatchId);
    workspace = await openWorkspace({ repository, policy: resolved.branch, dispatchId, label: options.label, signal });
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
    const lease = await provider.acquire({ repository: root, directory: ws.directory, ...boundary.context, variables: {}, signal })
      .catch(async (error: unknown) => {
        await boundary.dispose();
        throw error;
      });
    const closeBoundary = async (): Promise<void> => {
      const { restored } = await boundary.close(dispatchId);
      if (restored.length > 0) observers.warn(`The agent changed git control files of the repository; each was restored as it was before the turn: ${restored.join(", ")}.`);
    };
    const activity = createActivityLog(root, dispatchId, options.activityTransport);
    const context: ConversationContext = {
      repository: root, sandbox: lease, staging, home: options.conversationHome, local: provider.placement === "host",
      warn: (message) => observers.warn(message), signal,
    };
    try {
      await activity.start({
        dispatchId, label: options.label, agent: agent.name, provider: provider.name, repository: root, directory: ws.directory,
        branch: ws.branch, pid: process.pid, startedAt: new Date(started).toISOString(), state: "running",
      }).catch((error: unknown) => observers.warn(`Could not write the activity record: ${String(error)}.`));
      enter("hooks");
      await Promise.all([
        runHostHooks("hostReady", options.hooks?.hostReady ?? [], ws.directory, signal),
        runSandboxHooks(options.hooks?.sandboxReady ?? [], lease, signal),
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
          pass, text: outcome.text, usage: captured.usage ?? outcome.usage, conversationId: outcome.conversationId,
          marker: outcome.marker, settled: outcome.settled, durationMs: outcome.durationMs,
        });
        if (outcome.marker) break;
      }
    } catch (error) {
      // Save what the failed turn said, so the conversation can be continued from the recovery details.
      if (conversationId && conversation?.id !== conversationId && !isOutpostError(error, "session")) {
        // Without the dispatch's signal: after an abort the capture must still run (bounded by its own deadline).
        const rescue = { ...context, signal: AbortSignal.timeout(60_000) };
        conversation = (await captureConversation(agent, conversationId, rescue, (message) => observers.warn(message)).catch(() => ({}) as { record?: ConversationRecord })).record;
      }
      await lease.release().catch(() => undefined);
      await closeBoundary().catch((closing: unknown) => observers.warn(`After the failure, ${String(closing)}`));
      await activity.fail(phase, describe(error)).catch(() => undefined);
      throw error;
    }
    enter("release");
    await lease.release().catch(async (error: unknown) => {
      await activity.fail("release", describe(error)).catch(() => undefined);
      throw error;
    });
    enter("import");
    await closeBoundary();
    const removal = activity.remove().catch((error: unknown) => observers.warn(`Could not remove the activity record: ${String(error)}.`));

    // Listing the agent's commits and integrating them are independent: an integration with nothing to
    // merge returns "up-to-date" at once.
    enter(ws.mode === "integrate" ? "integrate" : "commits");
    const [commits] = await Promise.all([
      commitsSince(ws.directory, ws.baseline),
      ws.mode === "integrate" ? integrateBranch(ws, identity, signal, (message) => observers.warn(message)) : undefined,
    ]);
    const branch = ws.mode === "integrate" ? ws.target : ws.branch;
    await removal;
    enter("close");
    const closed = ws.mode === "current" ? { kept: false } : await closeWorkspace(ws, { deleteBranch: ws.mode === "integrate" });
    if (closed.kept && ws.created && "reason" in closed && closed.reason) observers.warn(`Kept the worktree ${ws.directory}: ${closed.reason}.`);
    enter("done");
    const last = turns[turns.length - 1];
    return {
      dispatchId, label: options.label, text: last?.text ?? "", turns,
      usage: turns.reduce<Usage>((sum, turn) => addUsage(sum, turn.usage), {}),
      completed: resolved.markers.length === 0 || turns.some((turn) => turn.marker !== undefined),
      commits, branch, workBranch: ws.branch, directory: ws.directory, workspaceKept: closed.kept,
      conversation, conversationId, observerErrors: observers.errors, durationMs: Date.now() - started,
    };
  } catch (error) {
    if (!workspace) throw error;
    const commits = await commitsSince(workspace.directory, workspace.baseline).catch(() => []);
    throw withRecovery(error, { dispatchId, branch: workspace.branch, directory: workspace.directory, commits, conversation, conversationId, phase });
  } finally {
    await claim?.release();
    await reservation?.release();
    await rm(staging, { recursive: true, force: true });
  }

  function runTurnFor(pass: number) {
    return async (lease: SandboxLease) => {
      const turn = {
        prompt, root: lease.root, home: lease.home, model: options.model,
        resume: options.continuation ? { id: options.continuation.id, fork: options.continuation.fork } : undefined,
      };
      await writeHomeFiles(lease, agent.homeFiles?.(turn) ?? [], staging, signal);
      return runTurn({
        agent, lease, turn, timers: resolved.timers, markers: resolved.markers, variables, signal,
        onEvent: (event) => {
          if (event.type === "conversation") conversationId = event.id;
          observers.observe({ dispatchId, label: options.label, pass, timestamp: new Date().toISOString(), event });
        },
        onIdleWarning: (silentMs) => observers.warn(`${options.label ?? agent.name}: no output from ${agent.name} for ${Math.round(silentMs / 1000)} s (pass ${pass}); it is stopped after ${Math.round(resolved.timers.idleMs / 1000)} s of silence.`),
      });
    };
  }
}

function describe(error: unknown): { code: string; message: string } {
  const code = typeof (error as { code?: unknown })?.code === "string" ? (error as { code: string }).code : "process";
  return { code, message: error instanceof Error ? error.message : String(error) };
}
