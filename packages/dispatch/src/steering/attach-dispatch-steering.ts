import type { DispatchState } from "../stages/dispatch-state.js";
import type { SteeringDelivery } from "./steering.js";
import { DispatchSteering } from "./dispatch-steering.js";
import type { HeldSteering } from "./held-steering.js";

/** Binds the steering dispatch() took to the prepared dispatch: each delivery is a `steer` event and a span event. */
export function attachDispatchSteering(state: DispatchState, held: HeldSteering | undefined): void {
  if (!held) return;
  state.steering = new DispatchSteering(held, state.dispatchId, (delivery, pass, text) => reportSteer(state, delivery, pass, text));
}

/** One delivered instruction, as observers, the hub and the trace see it (a replay reports its recorded ones too). */
export function reportSteer(state: DispatchState, delivery: SteeringDelivery, pass: number, text: string): void {
  // An injection is an input of the running turn: journaled among its events, where it arrived, so a replay plays it there.
  // (A resumption is journaled with the turn it starts.)
  if (delivery === "injected") state.journal?.append({ kind: "steer", pass, delivery, text, atMs: Date.now() - state.started });
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
