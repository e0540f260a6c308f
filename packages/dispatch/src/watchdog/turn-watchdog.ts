import { OutpostError, type AgentEvent } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import { describeFinding, RepetitionCounter, type WatchdogFinding } from "./repetition.js";
import { reportWatchdog } from "./report-watchdog.js";
import { WATCHDOG_DEFAULTS, type Watchdog } from "./watchdog-options.js";

const DEFAULT_STEER = "You seem to be repeating yourself. Stop, state what is blocking you, and try a different approach.";

/** The watchdog of one running turn: fed its events, it stops the turn, warns or steers. */
export interface TurnWatchdog {
  /** Aborts when the watchdog stops the turn; given to the turn with the dispatch's own signal. */
  readonly signal: AbortSignal;
  onEvent(event: AgentEvent): void;
  /** The error the turn's failure becomes: code `stuck` when the watchdog stopped it, else the failure itself. */
  failure(error: unknown): unknown;
  /** Ends its timer once the turn is over. */
  end(): void;
}

/** A watchdog for a turn of pass `pass`, or undefined without the `watchdog` option. */
export function watchTurn(state: DispatchState, pass: number): TurnWatchdog | undefined {
  const options: Watchdog | undefined = state.options.watchdog;
  if (!options) return undefined;
  const action = options.action ?? "stop";
  const counter = new RepetitionCounter({
    toolCalls: options.repeatedToolCalls ?? WATCHDOG_DEFAULTS.repeatedToolCalls,
    texts: options.repeatedTexts ?? WATCHDOG_DEFAULTS.repeatedTexts,
  });
  const controller = new AbortController();
  let stopped: WatchdogFinding | undefined;
  let timer: NodeJS.Timeout | undefined;
  let last = Date.now();
  const act = (finding: WatchdogFinding): void => {
    if (stopped) return;
    reportWatchdog(state, pass, finding, action);
    if (action === "stop") {
      stopped = finding;
      clearTimeout(timer);
      controller.abort(new Error(`stopped by the watchdog (${finding.rule})`));
    } else if (action === "steer") {
      state.options.steering
        ?.send(options.message ?? DEFAULT_STEER)
        .catch((error: unknown) =>
          state.observers.warn(`The watchdog could not steer the agent: ${error instanceof Error ? error.message : String(error)}`),
        );
    }
  };
  const arm = (): void => {
    if (options.silenceMs === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      act({ rule: "silence", silentMs: Date.now() - last });
      // Warned or steered: watched again for another window.
      if (!stopped) arm();
    }, options.silenceMs);
    timer.unref();
  };
  arm();
  return {
    signal: controller.signal,
    onEvent(event) {
      // Undecoded lines are not progress.
      if (event.type === "raw" || stopped) return;
      last = Date.now();
      arm();
      const finding = counter.add(event);
      if (finding) act(finding);
    },
    failure(error) {
      if (!stopped) return error;
      return new OutpostError(
        "stuck",
        `The watchdog stopped ${state.agent.name} in pass ${pass}: ${describeFinding(stopped)}. ` +
          `Its work so far is kept (see details.recovery); give it a clearer brief, or tune watchdog.`,
        { cause: error, details: { watchdog: { ...stopped, pass, action } } },
      );
    },
    end() {
      clearTimeout(timer);
    },
  };
}
