import type { Usage } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import type { FallbackSkip } from "./run-with-fallback.js";

/**
 * One fallback switch, as the journal, observers, the hub and the trace see it; a replay reports its recorded
 * ones through the same path. `usage`: what the skipped candidate consumed, journaled so a replay counts it too.
 */
export function reportFallback(state: DispatchState, pass: number, skip: FallbackSkip, next: string, usage?: Usage): void {
  state.journal?.append({
    kind: "fallback",
    pass,
    from: skip.agent,
    to: next,
    classification: skip.classification,
    ...(skip.rule ? { rule: skip.rule } : {}),
    message: skip.message,
    ...(usage && Object.keys(usage).length > 0 ? { usage } : {}),
  });
  state.observers.warn(
    `${skip.agent} failed (${skip.classification}${skip.rule ? `, rule ${skip.rule}` : ""}); ${next} runs the brief instead.`,
  );
  state.spans.event("outpost.fallback", {
    "outpost.fallback.from": skip.agent,
    "outpost.fallback.to": next,
    "outpost.fallback.classification": skip.classification,
  });
  const event = {
    from: skip.agent,
    to: next,
    classification: skip.classification,
    ...(skip.rule ? { rule: skip.rule } : {}),
    message: skip.message,
  };
  state.observers.control(pass, { type: "fallback", ...event });
  state.observers.emit({
    type: "fallback",
    dispatchId: state.dispatchId,
    label: state.options.label,
    ...event,
    timestamp: new Date().toISOString(),
  });
}
