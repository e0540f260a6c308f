import { OutpostError } from "@outpost/core";

/** How an instruction reached the agent: written into its running turn, or by stopping it and resuming its conversation. */
export type SteeringDelivery = "injected" | "resumed";

/** What `send()` resolves with once the instruction reached the agent. */
export interface SteeringReceipt {
  readonly delivery: SteeringDelivery;
  readonly dispatchId: string;
  /** The pass the instruction steered. */
  readonly pass: number;
}

/**
 * Where a steering stands: `pending` while its instructions wait (no dispatch yet, or its dispatch has not reached
 * a turn that takes them), `attached` while a turn of its dispatch takes them, `ended` once that dispatch ended
 * (sends are refused until another dispatch takes it) or the steering was closed.
 */
export type SteeringState = "pending" | "attached" | "ended";

/**
 * Corrects an agent while its dispatch runs: `dispatch({ steering })` attaches it for the whole dispatch and
 * releases it at the end. `send()` rejects with code `steering`, saying why, when the instruction cannot be delivered.
 */
export interface Steering {
  /** Delivers an instruction to the running agent; resolves once it was written into its turn or resumed it. */
  send(text: string): Promise<SteeringReceipt>;
  /** Refuses later messages and rejects the ones not delivered yet. */
  close(): void;
  readonly closed: boolean;
  readonly state: SteeringState;
}

/** One instruction waiting to be delivered. */
export interface PendingInstruction {
  readonly text: string;
  deliver(receipt: SteeringReceipt): void;
  refuse(reason: string): void;
}

/** What a dispatch attaches to a steering: told when an instruction arrives. */
export interface SteeringSink {
  /** The dispatch holding the steering; undefined until it has an id (its `prepare` stage). */
  readonly dispatchId: string | undefined;
  arrived(): void;
}

/** The dispatch's end of a steering: takes the waiting instructions, and detaches. */
export interface SteeringAttachment {
  take(): PendingInstruction[];
  readonly waiting: number;
  /** Whether a turn takes instructions now (`attached`) or they wait (`pending`). */
  mark(state: "pending" | "attached"): void;
  /** Rejects what was not delivered with `reason`, and lets the steering be attached again. */
  detach(reason: string): void;
}

class SteeringController implements Steering {
  private pending: PendingInstruction[] = [];
  private sink: SteeringSink | undefined;
  closed = false;
  state: SteeringState = "pending";

  send(text: string): Promise<SteeringReceipt> {
    if (this.closed) return Promise.reject(refusal("the steering was closed; create a new one with createSteering()"));
    if (typeof text !== "string" || text.trim() === "")
      return Promise.reject(refusal("the instruction is empty; send the text the agent should follow"));
    // Before its dispatch reaches a turn (or before dispatch() is called) the instruction waits; after it ended, nothing will take it.
    if (this.state === "ended")
      return Promise.reject(
        refusal("no dispatch is running with this steering; pass it as dispatch({ steering }) and send while the dispatch runs"),
      );
    return new Promise<SteeringReceipt>((resolve, reject) => {
      this.pending.push({ text, deliver: resolve, refuse: (reason) => reject(refusal(reason)) });
      this.sink?.arrived();
    });
  }

  close(): void {
    this.closed = true;
    this.state = "ended";
    this.refuseAll("the steering was closed before the instruction was delivered");
  }

  attach(sink: SteeringSink): SteeringAttachment {
    if (this.sink) {
      const holder = this.sink.dispatchId ?? "that is starting";
      throw new OutpostError(
        "configuration",
        `This steering is already attached to dispatch ${holder}; create one steering per dispatch with createSteering().`,
        { details: { ...(this.sink.dispatchId ? { dispatchId: this.sink.dispatchId } : {}) } },
      );
    }
    this.sink = sink;
    if (!this.closed) this.state = "pending";
    const pending = (): PendingInstruction[] => this.pending;
    return {
      take: () => this.pending.splice(0),
      get waiting() {
        return pending().length;
      },
      mark: (state) => {
        if (this.sink === sink && !this.closed) this.state = state;
      },
      detach: (reason) => {
        if (this.sink !== sink) return;
        this.sink = undefined;
        this.state = "ended";
        this.refuseAll(reason);
      },
    };
  }

  private refuseAll(reason: string): void {
    for (const instruction of this.pending.splice(0)) instruction.refuse(reason);
  }
}

const controllers = new WeakMap<Steering, SteeringController>();

function refusal(reason: string): OutpostError {
  return new OutpostError("steering", `The steering message was not delivered: ${reason}.`, { details: { reason } });
}

/** A steering controller for one dispatch: `dispatch({ steering })`, then `send()` while it runs. */
export function createSteering(): Steering {
  const controller = new SteeringController();
  const steering: Steering = {
    send: (text) => controller.send(text),
    close: () => controller.close(),
    get closed() {
      return controller.closed;
    },
    get state() {
      return controller.state;
    },
  };
  controllers.set(steering, controller);
  return steering;
}

/** Attaches a steering made by createSteering() to a dispatch (code `configuration` for any other object). */
export function attachSteering(steering: Steering, sink: SteeringSink): SteeringAttachment {
  const controller = controllers.get(steering);
  if (!controller) {
    throw new OutpostError("configuration", "steering must come from createSteering(); a hand-made object cannot be attached.", {
      details: { option: "steering" },
    });
  }
  return controller.attach(sink);
}
