import type { DispatchState } from "../stages/dispatch-state.js";
import type { SteeringDelivery } from "./steering.js";
import { DispatchSteering } from "./dispatch-steering.js";

/** Attaches the `steering` option to the dispatch: each delivery is a `steer` event and a span event. */
export function attachDispatchSteering(state: DispatchState): void {
  const steering = state.options.steering;
  if (!steering) return;
  state.steering = new DispatchSteering(steering, state.dispatchId, (delivery, pass, text) => reportSteer(state, delivery, pass, text));
}

/** One delivered instruction, as observers, the hub and the trace see it (a replay reports its recorded ones too). */
export function reportSteer(state: DispatchState, delivery: SteeringDelivery, pass: number, text: string): void {
  state.spans.event("outpost.steer", { "outpost.steer.delivery": delivery, "outpost.pass": pass });
  state.observers.diagnostic(`steering: ${delivery} into pass ${pass}`);
  state.observers.control(pass, { type: "steer", delivery, text });
  state.observers.emit({
    type: "steer",
    dispatchId: state.dispatchId,
    label: state.options.label,
    delivery,
    pass,
    text,
    timestamp: new Date().toISOString(),
  });
}
