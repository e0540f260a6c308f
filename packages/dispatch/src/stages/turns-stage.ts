import { throwIfAborted, type SandboxLease } from "@outpost/core";
import { captureConversation } from "../conversation/capture-conversation.js";
import { findDispatchProcesses } from "../activity/dispatch-processes.js";
import { writeHomeFiles } from "../turn/home-files.js";
import { runTurn } from "../turn/run-turn.js";
import { note, sandboxOf, type DispatchState } from "./dispatch-state.js";

/**
 * Stage `turns`: runs the brief pass after pass until a pass's text holds an end marker, capturing the
 * conversation after each pass.
 */
export async function turnsStage(state: DispatchState): Promise<void> {
  const { options, resolved, observers } = state;
  const { lease, context } = sandboxOf(state);
  for (let pass = 1; pass <= resolved.passes; pass += 1) {
    throwIfAborted(options.signal, "The dispatch");
    const outcome = await runPass(state, lease, pass);
    state.conversationId = outcome.conversationId ?? state.conversationId;
    const captured = await captureConversation(options.agent, outcome.conversationId, context, (message) => observers.warn(message));
    state.conversation = captured.record ?? state.conversation;
    state.turns.push({
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
}

async function runPass(state: DispatchState, lease: SandboxLease, pass: number) {
  const { options, resolved, observers, dispatchId } = state;
  const { agent, sandboxProvider: provider, signal } = options;
  const turn = {
    prompt: state.prompt,
    root: lease.root,
    home: lease.home,
    model: options.model,
    resume: options.continuation ? { id: options.continuation.id, fork: options.continuation.fork } : undefined,
  };
  await writeHomeFiles(lease, agent.homeFiles?.(turn) ?? [], state.staging, signal);
  let located = false;
  return runTurn({
    agent,
    lease,
    turn,
    timers: resolved.timers,
    markers: resolved.markers,
    variables: state.variables,
    signal,
    onEvent: (event) => {
      if (!located && provider.placement === "host") {
        located = true;
        void findDispatchProcesses(dispatchId).then((found) => {
          const leader = found.find((entry) => entry.pid === entry.processGroup);
          if (leader) return note(state, state.activity.update({ agentProcessGroup: leader.processGroup }));
        });
      }
      if (event.type === "conversation") state.conversationId = event.id;
      observers.observe({ dispatchId, label: options.label, pass, timestamp: new Date().toISOString(), event });
    },
    onDiagnostic: (message) => observers.diagnostic(message),
    onIdleWarning: (silentMs) =>
      observers.warn(
        `${options.label ?? agent.name}: no output from ${agent.name} for ${Math.round(silentMs / 1000)} s (pass ${pass}); it is stopped after ${Math.round(resolved.timers.idleMs / 1000)} s of silence.`,
      ),
  });
}
