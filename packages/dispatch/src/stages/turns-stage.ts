import { addUsage, throwIfAborted, type AgentAdapter, type AgentEvent, type ReplayAgent, type SandboxLease } from "@outpost/core";
import { turnUsage } from "../turn/turn-usage.js";
import { redactConversation } from "../redact/redact-conversation.js";
import { captureConversation, prepareCapture } from "../conversation/capture-conversation.js";
import { conversationErrorAfter, requiredConversationError } from "../conversation/conversation-error.js";
import { findDispatchProcesses } from "../activity/dispatch-processes.js";
import { commandHomeFiles, writeHomeFiles } from "../turn/home-files.js";
import { isSharedHome } from "../turn/shared-home.js";
import { runTurn, type TurnOutcome } from "../turn/run-turn.js";
import { runWithFallback } from "../fallback/run-with-fallback.js";
import { isFallbackAgent } from "../fallback/fallback-agent.js";
import { settleResponse } from "../response/settle-response.js";
import { replayTurn } from "../replay/replay-turn.js";
import { replayBuildOf, replayTurns } from "../replay/replay-stage.js";
import { replayPass, replayRepairs } from "../replay/replay-pass.js";
import { reportFallback } from "../fallback/report-fallback.js";
import { runSteered } from "../steering/steered-turn.js";
import { reportSteer } from "../steering/attach-dispatch-steering.js";
import type { TurnSteering } from "../steering/dispatch-steering.js";
import { note, sandboxOf, type DispatchState } from "./dispatch-state.js";
import { forkThroughHook } from "../agents/fork-hook.js";
import { learnCliVersion } from "../turn/learn-cli-version.js";
import { assertWithinBudget, chargeTurn } from "../cost/dispatch-budget.js";
import { turnPricing } from "../cost/turn-pricing.js";
import { addCosts } from "../cost/turn-cost.js";
import { watchTurn } from "../watchdog/turn-watchdog.js";

/**
 * When the capture may start preparing (see `prepareCapture`): once the agent's command is on its way. A
 * script's runtime takes ~300 ms to start in a container, so it should overlap the turn from its start:
 * waiting to see a long turn made every short one pay that start after it (measured, Docker bench).
 */
const PREPARE_CAPTURE_AFTER_MS = 0;

/** What one turn is asked: the brief (new conversation or continuation), or a correction in the same conversation. */
interface TurnRequest {
  readonly pass: number;
  readonly prompt: string;
  readonly resume?: { readonly id: string; readonly fork?: boolean };
  readonly repair?: number;
  /** Pre-assigned id of the new conversation (steering, with an agent that takes one). */
  readonly conversationId?: string;
  /** Steering instructions this turn resumes the conversation with. */
  readonly steering?: readonly string[];
}

/**
 * Stage `turns`: runs the brief pass after pass until a pass's text holds an end marker, capturing the
 * conversation after each pass. A fallback chain moves to its next candidate when a turn fails with a
 * listed classification; a typed response is validated, with correction turns while it is invalid.
 * Each turn is journaled; a replay agent plays its recorded turns instead of running a CLI.
 */
export async function turnsStage(state: DispatchState): Promise<void> {
  const agent = state.options.agent;
  if (agent.kind === "replay") return replayTurns(state, agent, sandboxOf(state).lease, () => runTurns(state));
  return runTurns(state);
}

async function runTurns(state: DispatchState): Promise<void> {
  const { options, resolved } = state;
  const { lease } = sandboxOf(state);
  const continuation = options.continuation ? { id: options.continuation.id, fork: options.continuation.fork } : undefined;
  for (let pass = 1; pass <= resolved.passes; pass += 1) {
    throwIfAborted(options.signal, "The dispatch");
    const request: TurnRequest = { pass, prompt: state.prompt, ...(continuation ? { resume: continuation } : {}) };
    const outcome = isFallbackAgent(options.agent)
      ? await runChain(state, lease, request)
      : await runRecorded(state, lease, state.agent, request);
    if (outcome.marker) break;
  }
  await settleTypedResponse(state, lease);
  // A replay given no `response` still plays the corrections its recording made.
  if (options.agent.kind === "replay" && !resolved.response)
    await replayRepairs(state, options.agent, (agent, request) => recordTurn(state, lease, agent, request));
  state.steering?.turnsOver("the agent's turns had ended, nothing is left to steer; send while a turn runs");
  // After every turn, so steering restarts and later passes may still capture the conversation the result names.
  if (options.requireConversation && state.conversationError) throw requiredConversationError(state.conversationError);
}

/** With `response`: validates the last answer, with correction turns in the same conversation while it is invalid. */
async function settleTypedResponse(state: DispatchState, lease: SandboxLease): Promise<void> {
  const { options, resolved } = state;
  const response = resolved.response;
  if (!response) return;
  const settled = await settleResponse({
    ...response,
    text: state.turns[state.turns.length - 1]?.text ?? "",
    repair: async (prompt, attempt) => {
      throwIfAborted(options.signal, "The dispatch");
      if (!state.conversationId) throw new Error("unreachable: a correction turn needs the conversation id");
      const outcome = await runRecorded(state, lease, options.agent.kind === "replay" ? options.agent : state.agent, {
        pass: 1,
        prompt,
        resume: { id: state.conversationId },
        repair: attempt,
      });
      return outcome.text;
    },
  });
  state.value = settled.value;
  state.responseAttempts = settled.attempts;
}

/** Tries the chain's candidates in order, each preparing its home files only when its turn comes. */
async function runChain(state: DispatchState, lease: SandboxLease, request: TurnRequest): Promise<TurnOutcome> {
  const chain = state.options.agent;
  if (!isFallbackAgent(chain)) throw new Error("unreachable: runChain needs a fallback agent");
  const run = await runWithFallback({
    candidates: chain.candidates,
    on: chain.on,
    run: (agent) => {
      state.agent = agent;
      return runRecorded(state, lease, agent, request);
    },
    onFallback: (skip, next, usage) => reportFallback(state, request.pass, skip, next.name, usage),
  });
  state.fallback = run.report;
  // What the skipped candidates consumed counts in the dispatch's usage: it is added to the answering turn.
  const last = state.turns[state.turns.length - 1];
  if (last && Object.keys(run.skippedUsage).length > 0) {
    // Priced at the same model's rates, and charged to a shared ledger like any turn's cost.
    const skipped = last.costUsd === undefined ? undefined : turnPricing(state, run.skippedUsage).costUsd;
    state.turns[state.turns.length - 1] = {
      ...last,
      usage: addUsage(run.skippedUsage, last.usage),
      ...(skipped === undefined ? {} : { costUsd: addCosts(last.costUsd!, skipped) }),
    };
    await chargeTurn(state, skipped);
  }
  return run.outcome;
}

/** Runs one turn with one agent, and with steering the turns its instructions resume. */
function runRecorded(
  state: DispatchState,
  lease: SandboxLease,
  agent: AgentAdapter | ReplayAgent,
  request: TurnRequest,
): Promise<TurnOutcome> {
  if (agent.kind === "replay") return replayPass(state, agent, request, (replayed, next) => recordTurn(state, lease, replayed, next));
  if (!state.steering) return recordTurn(state, lease, agent, request);
  return runSteered(
    state.steering,
    agent,
    lease,
    request,
    {
      resume: (previous, id, steering) => ({ pass: previous.pass, prompt: steering.join("\n\n"), resume: { id }, steering }),
      restart: (previous, steering) => {
        state.observers.warn(
          `${agent.name} was stopped for steering before it saved its conversation: the brief runs again, with the instruction, in a new conversation.`,
        );
        return { pass: previous.pass, prompt: [previous.prompt, ...steering].join("\n\n"), steering };
      },
    },
    (next, control) => recordTurn(state, lease, agent, next, control),
  );
}

/** Runs (or replays) one turn with one agent, captures its conversation and records and journals the turn. */
async function recordTurn(
  state: DispatchState,
  lease: SandboxLease,
  agent: AgentAdapter | ReplayAgent,
  request: TurnRequest,
  control?: TurnSteering,
): Promise<TurnOutcome> {
  const { options, observers, journal } = state;
  // Every turn (pass, repair, steering resume, fallback candidate) starts only within the budget.
  await assertWithinBudget(state);
  const label = request.repair ? `repair ${request.repair}` : `turn ${request.pass}`;
  const span = state.spans.nested("outpost.turn", {
    "outpost.pass": request.pass,
    "outpost.agent": agent.name,
    ...(request.repair ? { "outpost.repair": request.repair } : {}),
  });
  const steering = agent.kind === "replay" ? agent.pendingSteering() : request.steering;
  journal?.append({
    kind: "turn-start",
    pass: request.pass,
    prompt: request.prompt,
    agent: agent.name,
    ...(steering ? { steering } : {}),
    ...(request.repair ? { repair: request.repair } : {}),
  });
  const started = Date.now();
  const context = { ...sandboxOf(state).context, variables: state.variables.get(agent) ?? {} };
  // The capture's sandbox work starts beside the turn, right after the agent's command.
  const early = setTimeout(() => prepareCapture(agent, context), PREPARE_CAPTURE_AFTER_MS);
  early.unref();
  // A replay plays what was recorded: nothing of it can be stuck.
  const watchdog = agent.kind === "replay" ? undefined : watchTurn(state, request.pass);
  const onEvent = (event: AgentEvent): void => {
    control?.onEvent(event);
    journal?.append({ kind: "event", pass: request.pass, atMs: Date.now() - started, event });
    if (event.type === "conversation") state.conversationId = event.id;
    observers.observe({
      dispatchId: state.dispatchId,
      label: options.label,
      pass: request.pass,
      timestamp: new Date().toISOString(),
      event,
      // Replayed events say where the recording's came from.
      ...(agent.kind === "replay" ? { source: agent.source } : {}),
    });
    // After the event is observed, so a stop is reported after what caused it.
    watchdog?.onEvent(event);
  };
  let outcome: TurnOutcome;
  try {
    outcome =
      agent.kind === "replay"
        ? await replayTurn({
            agent,
            build: replayBuildOf(state),
            pass: request.pass,
            prompt: request.prompt,
            markers: state.resolved.markers,
            signal: options.signal,
            onEvent,
            onInjection: (text) => reportSteer(state, "injected", request.pass, text),
            onDivergence: (divergence) => state.divergences.push(divergence),
            warn: (message) => observers.warn(message),
          })
        : await runPass(state, lease, agent, request, onEvent, control, watchdog?.signal);
  } catch (error) {
    const failure = watchdog ? watchdog.failure(error) : error;
    span.end(failure);
    throw failure;
  } finally {
    clearTimeout(early);
    watchdog?.end();
  }
  span.end();
  state.conversationId = outcome.conversationId ?? state.conversationId;
  const capture = state.spans.nested("outpost.capture", { "outpost.pass": request.pass });
  const captured = await captureConversation(agent, outcome.conversationId, context, (message) => observers.warn(message));
  // After the usage was read from it: redacting the transcript (only when asked) changes no token count.
  await redactConversation(state.redactor, captured.record, (message) => observers.warn(message));
  capture.end();
  state.conversation = captured.record ?? state.conversation;
  state.conversationError = conversationErrorAfter(state.conversationError, captured, request.pass, outcome.conversationId);
  // A replay gives back the usage the recording settled on, whatever mode the recorded agent declared.
  const usage = agent.kind === "replay" ? outcome.usage : turnUsage(agent, outcome.usage, captured);
  const turn = {
    pass: request.pass,
    text: outcome.text,
    usage,
    ...turnPricing(state, usage),
    conversationId: outcome.conversationId,
    marker: outcome.marker,
    settled: outcome.settled,
    durationMs: outcome.durationMs,
    agent: agent.name,
    ...(request.repair ? { repair: request.repair } : {}),
    ...(outcome.interrupted ? { interrupted: outcome.interrupted } : {}),
    ...(request.steering ? { steering: request.steering } : {}),
  };
  state.turns.push(turn);
  await chargeTurn(state, turn.costUsd);
  journal?.append({
    kind: "turn-end",
    pass: turn.pass,
    text: turn.text,
    usage: turn.usage,
    ...(turn.conversationId ? { conversationId: turn.conversationId } : {}),
    ...(turn.marker ? { marker: turn.marker } : {}),
    settled: turn.settled,
    durationMs: turn.durationMs,
    ...(turn.interrupted ? { interrupted: turn.interrupted } : {}),
  });
  observers.diagnostic(`${label}: ${agent.name} answered in ${outcome.durationMs} ms (${options.label ?? state.dispatchId})`);
  return captured.missing === true ? { ...outcome, conversationMissing: true } : outcome;
}

async function runPass(
  state: DispatchState,
  lease: SandboxLease,
  agent: AgentAdapter,
  request: TurnRequest,
  onEvent: (event: AgentEvent) => void,
  control?: TurnSteering,
  stopped?: AbortSignal,
): Promise<TurnOutcome> {
  const { options, resolved, observers, dispatchId } = state;
  const { sandboxProvider: provider } = options;
  // The watchdog stops the turn as an abort would; recordTurn turns that into code `stuck`.
  const signal = stopped ? (options.signal ? AbortSignal.any([options.signal, stopped]) : stopped) : options.signal;
  const { pass } = request;
  // A custom agent's fork hook makes the copy first: the turn then continues it, and no native fork is asked.
  const resume = await forkThroughHook(
    agent,
    { prompt: request.prompt, root: lease.root, home: lease.home, resume: request.resume },
    lease,
    signal,
  );
  const cliVersion = await learnCliVersion({
    agent,
    lease,
    variables: state.variables.get(agent) ?? {},
    fork: resume?.fork === true,
    ...(signal ? { signal } : {}),
    warn: (message) => observers.warn(message),
  });
  const turn = {
    prompt: request.prompt,
    root: lease.root,
    home: lease.home,
    ...(isSharedHome(provider, lease) ? { sharedHome: true } : {}),
    ...(cliVersion ? { cliVersion } : {}),
    model: options.model,
    resume,
    ...(request.conversationId ? { conversationId: request.conversationId } : {}),
  };
  const files = agent.homeFiles?.(turn) ?? [];
  // A lease that writes home files with the command saves a round trip; a host home keeps the upload's
  // never-overwrite checks.
  const inline = lease.homeFiles === true && provider.placement !== "host" && files.length > 0;
  if (!inline) await writeHomeFiles(lease, files, state.staging, { host: provider.placement === "host", ...(signal ? { signal } : {}) });
  let located = false;
  return runTurn({
    agent,
    lease,
    turn,
    timers: resolved.timers,
    markers: resolved.markers,
    variables: state.variables.get(agent) ?? {},
    signal,
    ...(inline ? { homeFiles: commandHomeFiles(files) } : {}),
    ...(control ? { ...(control.live ? { live: control.live } : {}), interrupt: control.interrupt } : {}),
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
        `${options.label ?? agent.name}: no output from ${agent.name} for ${Math.round(silentMs / 1000)} s (pass ${pass}); ` +
          `it is stopped after ${Math.round(resolved.timers.idleMs / 1000)} s of silence.`,
      ),
  });
}
