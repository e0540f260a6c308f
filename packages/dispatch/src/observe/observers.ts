import type { AgentEvent, FailureClassification } from "@outpost/core";
import type { DispatchEvent, ObservationHub } from "./observation-hub.js";
import type { WatchdogFinding } from "../watchdog/repetition.js";
import type { WatchdogAction } from "../watchdog/watchdog-options.js";
import { createRedactor, type Redactor } from "../redact/redactor.js";

/** What the engine did to the agent, seen by `observe` among the agent's own events. */
export type DispatchControlEvent =
  | {
      /** A fallback candidate failed with a listed classification; `to` runs the brief instead. */
      readonly type: "fallback";
      readonly from: string;
      readonly to: string;
      readonly classification: FailureClassification;
      readonly rule?: string;
      readonly message: string;
    }
  | {
      /** A steering instruction reached the agent: injected into its turn, or by resuming its conversation. */
      readonly type: "steer";
      readonly delivery: "injected" | "resumed";
      readonly text: string;
    }
  | ({
      /** The watchdog found the agent stuck and took `action` (stop, warn or steer). */
      readonly type: "watchdog";
      readonly action: WatchdogAction;
    } & WatchdogFinding);

/** Where and when an agent event was seen. */
export interface ObservationContext {
  readonly dispatchId: string;
  readonly label?: string;
  /** 1-based pass number. */
  readonly pass: number;
  /** ISO 8601. */
  readonly timestamp: string;
  /** The normalized event itself, or a fallback or steer of the engine (its fields are also spread on the observation). */
  readonly event: AgentEvent | DispatchControlEvent;
  /** When it was seen, in milliseconds since the epoch (the public library's name). */
  readonly at: number;
  /** 1-based order of the observation within its dispatch. */
  readonly seq: number;
  /** On replayed events only: the observation source of the recording, `harness` or `agent` (the replay agent's `source`). */
  readonly source?: "agent" | "harness";
}

/** One normalized agent event (or a fallback or steer): its own fields, plus the pass it belongs to, `at`, `seq` and `timestamp`. */
export type AgentObservation = (AgentEvent | DispatchControlEvent) & ObservationContext;

/** What a stage reports; the observers number it and stamp it. */
export type ObservedEvent = Omit<ObservationContext, "at" | "seq" | "event"> & { readonly event: AgentEvent };

/** An exception thrown by an observer callback: collected, never changes the dispatch result. */
export interface ObserverError {
  readonly source: "observe" | "warn" | "diagnostic" | "observation";
  readonly message: string;
  readonly error: unknown;
}

export interface ObserverCallbacks {
  readonly observe?: (event: AgentObservation) => void;
  readonly warn?: (message: string) => void;
  readonly diagnostic?: (message: string) => void;
}

/** Calls the user's observers, collecting what they throw. */
export class Observers {
  readonly errors: ObserverError[] = [];
  private seq = 0;

  /** This dispatch's child of the `observation` hub; its listeners' failures are collected here too. */
  private readonly hub: ObservationHub | undefined;

  constructor(
    private readonly callbacks: ObserverCallbacks,
    parent?: ObservationHub,
    private readonly identity: { readonly dispatchId: string; readonly label?: string } = { dispatchId: "" },
    // What reaches the callbacks and the hub passes through it first (the `redact` option).
    private readonly redactor: Redactor = createRedactor(undefined),
  ) {
    this.hub = parent?.child(identity.dispatchId, { onListenerError: (error) => this.collect("observation", error) });
  }

  observe(observed: ObservedEvent): void {
    // Object.assign, not two spreads: the same object, built several times faster (this runs for every event).
    const observation: AgentObservation = this.redactor.value(
      Object.assign({}, observed.event, observed, {
        at: Date.parse(observed.timestamp),
        seq: ++this.seq,
      }),
    );
    this.call("observe", () => this.callbacks.observe?.(observation));
    this.emit({
      type: "agent-event",
      dispatchId: observation.dispatchId,
      label: observation.label,
      observation,
      timestamp: observation.timestamp,
    });
  }

  /** A fallback or steer: to `observe` with the pass (the hub has its own event for each). */
  control(pass: number, event: DispatchControlEvent): void {
    const { dispatchId, label } = this.identity;
    const timestamp = new Date().toISOString();
    const observation: AgentObservation = this.redactor.value({
      ...event,
      dispatchId,
      label,
      pass,
      timestamp,
      event,
      at: Date.parse(timestamp),
      seq: ++this.seq,
    });
    this.call("observe", () => this.callbacks.observe?.(observation));
  }

  warn(given: string): void {
    const message = this.redactor.text(given);
    this.call("warn", () => this.callbacks.warn?.(message));
    this.emit({
      type: "warning",
      dispatchId: this.identity.dispatchId,
      label: this.identity.label,
      message,
      timestamp: new Date().toISOString(),
    });
  }

  /** Reports to the observation hub, when there is one. */
  emit(event: DispatchEvent): void {
    if (!this.hub) return;
    try {
      this.hub.emit(this.redactor.value(event));
    } catch (error) {
      this.collect("observation", error);
    }
  }

  /** Waits for the hub's listeners (async ones included) to finish with what was emitted. */
  async drain(): Promise<void> {
    await this.hub?.drain().catch((error: unknown) => this.collect("observation", error));
  }

  diagnostic(message: string): void {
    this.call("diagnostic", () => this.callbacks.diagnostic?.(this.redactor.text(message)));
  }

  private call(source: ObserverError["source"], run: () => unknown): void {
    try {
      const returned = run();
      // An async observer's rejection is collected too, instead of becoming an unhandled rejection.
      if (returned && typeof (returned as Promise<unknown>).then === "function") {
        (returned as Promise<unknown>).then(undefined, (error: unknown) => this.collect(source, error));
      }
    } catch (error) {
      this.collect(source, error);
    }
  }

  private collect(source: ObserverError["source"], error: unknown): void {
    this.errors.push({ source, message: error instanceof Error ? error.message : String(error), error });
  }
}
