import { EXIT_CODES } from "../exit-codes.js";

/** Signals that end a run the way Ctrl-C does: the terminal closed (HUP), a CI job cancelled (TERM). */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

const SIGNAL_NUMBERS: Readonly<Record<StopSignal, number>> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** The shell's convention: 128 + the signal's number (130 for Ctrl-C). */
export function exitCodeForSignal(signal: StopSignal): number {
  return 128 + SIGNAL_NUMBERS[signal];
}

/**
 * While installed, the first stop signal aborts the dispatch (its agents and containers are stopped, its
 * work kept); a second one says what is going on; a third exits at once. Returns the uninstaller and
 * which signal arrived first.
 */
export function handleStopSignals(
  controller: AbortController,
  say: (text: string) => void,
): { readonly received: () => StopSignal | undefined; readonly dispose: () => void } {
  let first: StopSignal | undefined;
  let count = 0;
  const listeners = STOP_SIGNALS.map((signal) => {
    const listener = (): void => {
      count += 1;
      first ??= signal;
      if (count === 1) controller.abort(new Error(signal === "SIGINT" ? "interrupted (Ctrl-C)" : `stopped by ${signal}`));
      else if (count === 2) say("outpost: still stopping the agent and saving its work; send the signal again to quit at once.\n");
      else process.exit(first === undefined ? EXIT_CODES.aborted : exitCodeForSignal(first));
    };
    process.on(signal, listener);
    return [signal, listener] as const;
  });
  return {
    received: () => first,
    dispose: () => {
      for (const [signal, listener] of listeners) process.removeListener(signal, listener);
    },
  };
}
