import { throwIfAborted, type AgentAdapter, type AgentEvent, type SandboxLease } from "@outpost/core";
import { captureConversation } from "../conversation/capture-conversation.js";
import { findDispatchProcesses } from "../activity/dispatch-processes.js";
import { writeHomeFiles } from "../turn/home-files.js";
import { runTurn, type TurnOutcome } from "../turn/run-turn.js";
import { replayTurn } from "../replay/replay-turn.js";
import { checkReplayBaseline } from "../replay/replay-baseline.js";
import { note, sandboxOf, workspaceOf, type DispatchState } from "./dispatch-state.js";

/**
 * Stage `turns`: runs the brief pass after pass until a pass's text holds an end marker, capturing the
 * conversation after each pass and journaling each turn. A replay agent plays its recorded turns instead.
 */
export async function turnsStage(state: DispatchState): Promise<void> {
  const { options, resolved, observers, journal } = state;
  const { lease, context } = sandboxOf(state);
  if (options.agent.kind === "replay") checkReplayBaseline(state, options.agent, workspaceOf(state).baseline);
  for (let pass = 1; pass <= resolved.passes; pass += 1) {
    throwIfAborted(options.signal, "The dispatch");
    const steering = options.agent.kind === "replay" ? options.agent.pendingSteering() : undefined;
    journal?.append({ kind: "turn-start", pass, prompt: state.prompt, ...(steering ? { steering } : {}) });
    const started = Date.now();
    const onEvent = (event: AgentEvent): void => {
      journal?.append({ kind: "event", pass, atMs: Date.now() - started, event });
      if (event.type === "conversation") state.conversationId = event.id;
      observers.observe({ dispatchId: state.dispatchId, label: options.label, pass, timestamp: new Date().toISOString(), event });
    };
    const outcome: TurnOutcome =
      options.agent.kind === "replay"
        ? await replayTurn({
            agent: options.agent,
            lease,
            pass,
            prompt: state.prompt,
            markers: resolved.markers,
            signal: options.signal,
            onEvent,
            onDivergence: (divergence) => state.divergences.push(divergence),
            warn: (message) => observers.warn(message),
          })
        : await runPass(state, options.agent, lease, pass, onEvent);
    state.conversationId = outcome.conversationId ?? state.conversationId;
    const captured = await captureConversation(options.agent, outcome.conversationId, context, (message) => observers.warn(message));
    state.conversation = captured.record ?? state.conversation;
    const turn = {
      pass,
      text: outcome.text,
      usage: captured.usage ?? outcome.usage,
      conversationId: outcome.conversationId,
      marker: outcome.marker,
      settled: outcome.settled,
      durationMs: outcome.durationMs,
    };
    state.turns.push(turn);
    journal?.append({
      kind: "turn-end",
      pass,
      text: turn.text,
      usage: turn.usage,
      ...(turn.conversationId ? { conversationId: turn.conversationId } : {}),
      ...(turn.marker ? { marker: turn.marker } : {}),
      settled: turn.settled,
      durationMs: turn.durationMs,
    });
    if (outcome.marker) break;
  }
}

async function runPass(state: DispatchState, agent: AgentAdapter, lease: SandboxLease, pass: number, onEvent: (event: AgentEvent) => void) {
  const { options, resolved, observers, dispatchId } = state;
  const { sandboxProvider: provider, signal } = options;
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
      onEvent(event);
    },
    onDiagnostic: (message) => observers.diagnostic(message),
    onIdleWarning: (silentMs) =>
      observers.warn(
        `${options.label ?? agent.name}: no output from ${agent.name} for ${Math.round(silentMs / 1000)} s (pass ${pass}); it is stopped after ${Math.round(resolved.timers.idleMs / 1000)} s of silence.`,
      ),
  });
}
