import type { AgentEvent } from "@outpost/core";

/** One normalized agent event, with the pass it belongs to and when it was seen. */
export interface AgentObservation {
  readonly dispatchId: string;
  readonly label?: string;
  /** 1-based pass number. */
  readonly pass: number;
  /** ISO 8601. */
  readonly timestamp: string;
  readonly event: AgentEvent;
}

/** An exception thrown by an observer callback: collected, never changes the dispatch result. */
export interface ObserverError {
  readonly source: "observe" | "warn" | "diagnostic";
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

  constructor(private readonly callbacks: ObserverCallbacks) {}

  observe(observation: AgentObservation): void {
    this.call("observe", () => this.callbacks.observe?.(observation));
  }

  warn(message: string): void {
    this.call("warn", () => this.callbacks.warn?.(message));
  }

  diagnostic(message: string): void {
    this.call("diagnostic", () => this.callbacks.diagnostic?.(message));
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
