import {
  abortError,
  classifyFailure,
  errorLines,
  LineSplitter,
  OutpostError,
  addUsage,
  tailLines,
  type AgentAdapter,
  type AgentEvent,
  type AgentTurn,
  type CommandChannel,
  type CommandHomeFile,
  type SandboxLease,
  type Usage,
} from "@outpost/core";
import { TurnTimers, type TimerStop, type TurnTimerSettings } from "../timers/turn-timers.js";
import { findMarker } from "./markers.js";
import { boundedAfterStop } from "./bounded-stop.js";
import type { LiveTurnInput } from "./live-turn-input.js";

export interface RunTurnInput {
  readonly agent: AgentAdapter;
  readonly lease: SandboxLease;
  readonly turn: AgentTurn;
  readonly timers: TurnTimerSettings;
  readonly markers: readonly string[];
  /** Variables added to the agent command's own (provider and agent variables, git identity). */
  readonly variables: Readonly<Record<string, string>>;
  /** Written by the command itself while it starts (leases with `homeFiles`). */
  readonly homeFiles?: readonly CommandHomeFile[];
  readonly signal?: AbortSignal;
  readonly onEvent: (event: AgentEvent) => void;
  readonly onIdleWarning: (silentMs: number) => void;
  /** The agent's diagnostics for this turn (unknown event kinds, version warnings). */
  readonly onDiagnostic?: (message: string) => void;
  /** Steering instructions injected while the turn runs (the agent's live session runs the turn). */
  readonly live?: LiveTurnInput;
  /** Aborted by steering: the agent is stopped and the turn returns, interrupted, to be resumed. */
  readonly interrupt?: AbortSignal;
}

export interface TurnOutcome {
  readonly text: string;
  readonly usage: Usage;
  readonly conversationId?: string;
  readonly marker?: string;
  /** The process was stopped settleMs after a marker. */
  readonly settled: boolean;
  readonly status: number;
  readonly durationMs: number;
  /** Steering stopped the agent; its conversation is resumed with the instruction. */
  readonly interrupted?: "steering";
  /** Set once the turn was captured: the agent saved no conversation under its id, so it cannot be resumed. */
  readonly conversationMissing?: boolean;
}

const RETAIN_BYTES = 64 * 1024;

/**
 * Runs one agent process: feeds its stdout through a LineSplitter into the agent's decoder, watches the
 * timers, and turns the outcome into a result or an OutpostError. Stopping goes through the command's
 * signal, which makes the provider end the agent's whole process tree.
 */
export async function runTurn(input: RunTurnInput): Promise<TurnOutcome> {
  const { agent, lease, turn } = input;
  const session = input.live?.open(turn);
  const command = session?.command ?? agent.command(turn);
  const decoder = agent.createDecoder({
    turn,
    ...(session ? { live: true } : {}),
    ...(input.onDiagnostic ? { diagnostic: input.onDiagnostic } : {}),
  });
  const splitter = new LineSplitter();
  const stopper = new AbortController();
  let stop: TimerStop | "signal" | "steering" | undefined;
  const texts: string[] = [];
  let lastWasDelta = false;
  let finished: Extract<AgentEvent, { type: "finished" }> | undefined;
  let failure: Extract<AgentEvent, { type: "failure" }> | undefined;
  let usage: Usage = {};
  let conversationId = turn.resume?.id ?? turn.conversationId;
  const started = Date.now();
  const longestMarker = Math.max(0, ...input.markers.map((marker) => marker.length));

  const timers = new TurnTimers(input.timers, {
    onIdleWarning: input.onIdleWarning,
    onStop: (reason) => {
      stop ??= reason;
      stopper.abort(new Error(`stopped: ${reason}`));
    },
  });
  const onAbort = (): void => {
    stop ??= "signal";
    timers.clear();
    stopper.abort(input.signal?.reason);
  };
  input.signal?.addEventListener("abort", onAbort, { once: true });
  const onInterrupt = (): void => {
    stop ??= "steering";
    stopper.abort(new Error("stopped: steering"));
  };
  input.interrupt?.addEventListener("abort", onInterrupt, { once: true });

  const handle = (event: AgentEvent): void => {
    if (event.type === "text") {
      // Deltas extend the message being streamed; a full text event starts a new one.
      if (event.delta && texts.length > 0 && lastWasDelta) texts[texts.length - 1] += event.text;
      else texts.push(event.text);
      lastWasDelta = event.delta === true;
    } else if (event.type === "usage") usage = addUsage(usage, event.usage);
    else if (event.type === "conversation") conversationId = event.id;
    else if (event.type === "finished") finished = event;
    else if (event.type === "failure") failure = event;
    input.onEvent(event);
    // A marker split across deltas is found in the message streamed so far (only its tail can be new).
    // An agent that owes a final event only ends with it: a marker it quotes in its text must not arm the settle timer.
    if (
      !agent.requiresFinishedEvent &&
      event.type === "text" &&
      findMarker(texts[texts.length - 1]!.slice(-(event.text.length + longestMarker)), input.markers)
    )
      timers.markerSeen();
    if (event.type === "finished" && findMarker(event.text ?? "", input.markers)) timers.markerSeen();
  };
  const decode = (line: string): void => {
    if (line.trim() === "") return;
    input.live?.line(line);
    for (const event of decoder.decode(line)) handle(event);
  };
  const observe = (channel: CommandChannel, chunk: string): void => {
    timers.activity();
    if (channel === "stdout") for (const line of splitter.push(chunk)) decode(line);
  };

  let status = -1;
  let stderr = "";
  let invokeError: unknown;
  timers.start();
  try {
    if (input.signal?.aborted) onAbort();
    if (input.interrupt?.aborted) onInterrupt();
    const result = await boundedAfterStop(
      lease.invoke({
        executable: command.executable,
        arguments: command.arguments,
        stdin: command.stdin,
        ...(input.live ? { input: input.live.input } : {}),
        directory: command.directory ?? turn.root,
        variables: { ...input.variables, ...command.variables },
        ...(input.homeFiles ? { homeFiles: input.homeFiles } : {}),
        signal: stopper.signal,
        retain: RETAIN_BYTES,
        observe,
      }),
      stopper.signal,
    );
    status = result.status;
    stderr = result.stderr;
  } catch (error) {
    invokeError = error;
  } finally {
    timers.clear();
    input.signal?.removeEventListener("abort", onAbort);
    input.interrupt?.removeEventListener("abort", onInterrupt);
    for (const line of splitter.flush()) decode(line);
  }

  const durationMs = Date.now() - started;
  const text = finished?.text ?? joinTexts(texts);
  const details = { agent: agent.name, status, durationMs, conversationId };
  // A sandbox that could not end the stopped agent says so after the timer's own message.
  const unfinished =
    stop !== undefined && OutpostError.isInstance(invokeError) && invokeError.code === "provider" ? ` ${invokeError.message}` : "";
  if (stop === "signal") throw abortError(input.signal!, `The ${agent.name} turn`);
  // Stopped to be resumed with a steering instruction: what it said so far is kept, its exit status is not a failure.
  if (stop === "steering")
    return { text: joinTexts(texts), usage, conversationId, settled: false, status, durationMs, interrupted: "steering" };
  if (stop === "idle") {
    throw new OutpostError(
      "timeout",
      `${agent.name} produced no output for ${input.timers.idleMs} ms and was stopped with its whole process tree. ` +
        `Raise idleMs if it needs longer silences, or check that it is not waiting for input.${unfinished}`,
      { details: { ...details, timer: "idle" } },
    );
  }
  if (stop === "deadline") {
    throw new OutpostError(
      "timeout",
      `${agent.name} ran past its ${input.timers.deadlineMs} ms deadline and was stopped with its whole process tree. Raise deadlineMs or give it a smaller task.${unfinished}`,
      { details: { ...details, timer: "deadline" } },
    );
  }
  // An agent that owes a final event did not finish without it: its markers do not count, even after a settle.
  if (stop === "settled" && agent.requiresFinishedEvent && !finished) {
    throw new OutpostError(
      "process",
      `${agent.name} printed an end marker but no final event, and was stopped ${input.timers.settleMs} ms later; ` +
        `without its final event the answer is incomplete. Check the CLI version and its output format.`,
      { details: { ...details, timer: "settle" } },
    );
  }
  const marker = findMarker(text, input.markers) ?? (stop === "settled" ? findMarker(joinTexts(texts), input.markers) : undefined);
  if (stop === "settled") return { text, usage: finished?.usage ?? usage, conversationId, marker, settled: true, status, durationMs };
  if (invokeError !== undefined) {
    if (OutpostError.isInstance(invokeError)) throw invokeError;
    throw new OutpostError(
      "process",
      `Running ${agent.name} failed: ${invokeError instanceof Error ? invokeError.message : String(invokeError)}. Check the sandbox provider.`,
      { cause: invokeError, details },
    );
  }
  const errorText = failure?.message ?? (finished?.isError ? (finished.text ?? "") : "");
  if (status !== 0 || failure || finished?.isError) {
    const classified = classifyFailure(agent.failureRules ?? [], `${errorText}\n${stderr}`);
    // The CLI's own error line first (an unknown flag is stated before pages of help text), then the tail.
    const ownError = errorLines(stderr).join(" / ");
    throw new OutpostError(
      "process",
      `${agent.name} failed (exit ${status})${errorText ? `: ${errorText.slice(0, 500)}` : ""}${ownError ? ` — ${ownError}` : ""}` +
        `${stderr.trim() ? ` — stderr: ${tailLines(stderr, 500)}` : ""}. Check the agent's configuration and the sandbox.`,
      {
        details: {
          ...details,
          stderr: stderr.slice(-4000),
          // What the failed turn consumed, so a fallback chain can add it to the dispatch's usage.
          usage: finished?.usage ?? usage,
          ...(classified ? { classification: classified.classification, rule: classified.rule.id } : {}),
        },
      },
    );
  }
  if (agent.requiresFinishedEvent && !finished) {
    throw new OutpostError(
      "process",
      `${agent.name} exited without its final event, so its answer is incomplete. Check the CLI version and its output format.`,
      { details },
    );
  }
  return { text, usage: finished?.usage ?? usage, conversationId, marker, settled: false, status, durationMs };
}

function joinTexts(texts: readonly string[]): string {
  return texts.join("\n");
}
