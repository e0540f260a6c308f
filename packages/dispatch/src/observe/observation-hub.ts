import type { FailureClassification } from "@outpost/core";
import type { AgentObservation } from "./observers.js";
import type { WatchdogFinding } from "../watchdog/repetition.js";
import type { WatchdogAction } from "../watchdog/watchdog-options.js";

/** What a hub carries: every dispatch reporting into it, told apart by dispatchId. */
export type DispatchEvent =
  | {
      readonly type: "dispatch-start";
      readonly dispatchId: string;
      readonly label?: string;
      readonly agent: string;
      readonly timestamp: string;
    }
  | {
      readonly type: "agent-event";
      readonly dispatchId: string;
      readonly label?: string;
      readonly observation: AgentObservation;
      readonly timestamp: string;
    }
  | {
      readonly type: "fallback";
      readonly dispatchId: string;
      readonly label?: string;
      /** The candidate that failed and the one that runs the brief next. */
      readonly from: string;
      readonly to: string;
      readonly classification: FailureClassification;
      readonly rule?: string;
      readonly message: string;
      readonly timestamp: string;
    }
  | {
      readonly type: "steer";
      readonly dispatchId: string;
      readonly label?: string;
      /** `injected` into the running turn, or `resumed`: the agent was stopped and its conversation resumed with it. */
      readonly delivery: "injected" | "resumed";
      readonly pass: number;
      readonly text: string;
      readonly timestamp: string;
    }
  | {
      /** One commit of the agent's, once the dispatch collected it (oldest first); `branch` is where it is now. */
      readonly type: "commit";
      readonly dispatchId: string;
      readonly label?: string;
      readonly id: string;
      readonly branch: string;
      readonly timestamp: string;
    }
  | ({
      /** The watchdog found the agent stuck in pass `pass` and took `action`. */
      readonly type: "watchdog";
      readonly dispatchId: string;
      readonly label?: string;
      readonly pass: number;
      readonly action: WatchdogAction;
      readonly timestamp: string;
    } & WatchdogFinding)
  | { readonly type: "warning"; readonly dispatchId: string; readonly label?: string; readonly message: string; readonly timestamp: string }
  | {
      readonly type: "dispatch-end";
      readonly dispatchId: string;
      readonly label?: string;
      readonly ok: boolean;
      /** The failure's code, when it failed. */
      readonly code?: string;
      readonly durationMs: number;
      readonly timestamp: string;
    };

export type DispatchEventListener = (event: DispatchEvent) => void | Promise<void>;

/**
 * Fans dispatch events out to listeners. `dispatch({ observation })` opens a child hub for its own
 * dispatchId; what the child emits reaches the parent's listeners too, so one hub can follow a batch.
 */
export interface ObservationHub {
  /** The dispatch this hub belongs to; undefined for a parent hub. */
  readonly dispatchId?: string;
  subscribe(listener: DispatchEventListener): () => void;
  emit(event: DispatchEvent): void;
  /** A hub for one dispatch; its listener errors go to `onListenerError`, else to the nearest ancestor's handler. */
  child(dispatchId: string, options?: { readonly onListenerError?: ListenerErrorHandler }): ObservationHub;
  /** Resolves once every listener call made so far (async ones included) has settled. */
  drain(): Promise<void>;
}

/** A listener that throws or rejects: reported here, never to the emitter. */
export type ListenerErrorHandler = (error: unknown, event: DispatchEvent) => void;

export function createObservationHub(options: { readonly onListenerError?: ListenerErrorHandler } = {}): ObservationHub {
  return new Hub(undefined, undefined, options.onListenerError);
}

class Hub implements ObservationHub {
  private readonly listeners = new Set<DispatchEventListener>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly parent: Hub | undefined,
    readonly dispatchId: string | undefined,
    private readonly onListenerError: ListenerErrorHandler | undefined,
  ) {}

  subscribe(listener: DispatchEventListener): () => void {
    if (typeof listener !== "function") throw new TypeError("An observation listener must be a function.");
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: DispatchEvent): void {
    this.deliver(event, this);
  }

  child(dispatchId: string, options: { readonly onListenerError?: ListenerErrorHandler } = {}): ObservationHub {
    return new Hub(this, dispatchId, options.onListenerError);
  }

  async drain(): Promise<void> {
    // Deliveries settling may not add more, but a listener may emit again: loop until nothing is pending.
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  // The emitting hub tracks every delivery it caused, its ancestors' included, so its drain() covers them.
  private deliver(event: DispatchEvent, origin: Hub): void {
    for (const listener of [...this.listeners]) {
      try {
        const returned = listener(event);
        if (returned && typeof returned.then === "function") {
          const settled = Promise.resolve(returned).then(undefined, (error: unknown) => this.report(error, event, origin));
          origin.track(settled);
          if (origin !== this) this.track(settled);
        }
      } catch (error) {
        this.report(error, event, origin);
      }
    }
    this.parent?.deliver(event, origin);
  }

  private track(promise: Promise<void>): void {
    const tracked = promise.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  private report(error: unknown, event: DispatchEvent, origin: Hub): void {
    const handler = origin.onListenerError ?? this.onListenerError ?? this.parent?.handler();
    try {
      handler?.(error, event);
    } catch {
      // A failing error handler has nowhere left to report to.
    }
  }

  private handler(): ListenerErrorHandler | undefined {
    return this.onListenerError ?? this.parent?.handler();
  }
}
