import type { Steering, SteeringAttachment } from "./steering.js";
import { attachSteering } from "./steering.js";

/** A steering taken by a dispatch from the moment dispatch() is called, before the dispatch has an id. */
export interface HeldSteering {
  readonly attachment: SteeringAttachment;
  /** The dispatch is prepared: names it, and routes waiting and later instructions to `arrived`. */
  bind(dispatchId: string, arrived: () => void): void;
  /** The dispatch ended (or failed before it ran): what waits is refused with `reason`. */
  release(reason: string): void;
}

/**
 * Attaches the `steering` option at once, so that `send()` right after `dispatch()` is queued, not refused;
 * instructions wait until a turn can take them. Refuses a steering another dispatch holds (code `configuration`).
 */
export function holdSteering(steering: Steering | undefined): HeldSteering | undefined {
  if (steering === undefined) return undefined;
  let dispatchId: string | undefined;
  let route: (() => void) | undefined;
  const attachment = attachSteering(steering, {
    get dispatchId() {
      return dispatchId;
    },
    arrived: () => route?.(),
  });
  return {
    attachment,
    bind(id, arrived) {
      dispatchId = id;
      route = arrived;
      arrived();
    },
    release: (reason) => attachment.detach(reason),
  };
}
