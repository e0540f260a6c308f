import type { DispatchState } from "../stages/dispatch-state.js";
import { describeFinding, type WatchdogFinding } from "./repetition.js";
import type { WatchdogAction } from "./watchdog-options.js";

/** One finding of the watchdog, as the result lists it. */
export type WatchdogReport = WatchdogFinding & { readonly pass: number; readonly action: WatchdogAction; readonly timestamp: string };

/** Reports a finding to the result, `warn`, `observe` and the hub, and as a trace event. */
export function reportWatchdog(state: DispatchState, pass: number, finding: WatchdogFinding, action: WatchdogAction): void {
  const report: WatchdogReport = { ...finding, pass, action, timestamp: new Date().toISOString() };
  (state.watchdog ??= []).push(report);
  state.observers.warn(
    `Watchdog (pass ${pass}): ${state.agent.name} ${describeFinding(finding).replace(/^the same/, "repeated the same")}; ` +
      (action === "stop" ? "it is stopped (code stuck)." : action === "steer" ? "it is steered." : "it goes on."),
  );
  state.spans.event("outpost.watchdog", { "outpost.watchdog.rule": finding.rule, "outpost.watchdog.action": action });
  state.observers.control(pass, { type: "watchdog", ...finding, action });
  state.observers.emit({
    type: "watchdog",
    dispatchId: state.dispatchId,
    label: state.options.label,
    pass,
    ...finding,
    action,
    timestamp: report.timestamp,
  });
}
