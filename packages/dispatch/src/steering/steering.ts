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
 * Corrects an agent while its dispatch runs: `dispatch({ steering })` attaches it for the whole dispatch and
 * releases it at the end. `send()` rejects with code `steering`, saying why, when the instruction cannot be delivered.
 */
export interface Steering {
  /** Delivers an instruction to the running agent; resolves once it was written into its turn or resumed it. */
  send(text: string): Promise<SteeringReceipt>;
  /** Refuses later messages and rejects the ones not delivered yet. */
  close(): void;
  readonly closed: boolean;
}

/** One instruction waiting to be delivered. */
export interface PendingInstruction {
  readonly text: string;
  deliver(receipt: SteeringReceipt): void;
  refuse(reason: string): void;
}

/** What a dispatch attaches to a steering: told when an instruction arrives. */
export interface SteeringSink {
  readonly dispatchId: string;
  arrived(): void;
}

/** The dispatch's end of a steering: takes the waiting instructions, and detaches. */
export interface SteeringAttachment {
  take(): PendingInstruction[];
  readonly waiting: number;
  /** Rejects what was not delivered with `reason`, and lets the steering be attached again. */
  detach(reason: string): void;
}

class SteeringController implements Steering {
  private pending: PendingInstruction[] = [];
  private sink: SteeringSink | undefined;
  closed = false;

  send(text: string): Promise<SteeringReceipt> {
    if (this.closed) return Promise.reject(refusal("the steering was closed; create a new one with createSteering()"));
    if (typeof text !== "string" || text.trim() === "")
      return Promise.reject(refusal("the instruction is empty; send the text the agent should follow"));
    const sink = this.sink;
    if (!sink)
      return Promise.reject(
        refusal("no dispatch is running with this steering; pass it as dispatch({ steering }) and send while the dispatch runs"),
      );
    return new Promise<SteeringReceipt>((resolve, reject) => {
      this.pending.push({ text, deliver: resolve, refuse: (reason) => reject(refusal(reason)) });
      sink.arrived();
    });
  }

  close(): void {
    this.closed = true;
    this.refuseAll("the steering was closed before the instruction was delivered");
  }

  attach(sink: SteeringSink): SteeringAttachment {
    if (this.sink) {
      throw new OutpostError(
        "configuration",
        `This steering is already attached to dispatch ${this.sink.dispatchId}; create one steering per dispatch with createSteering().`,
        { details: { dispatchId: this.sink.dispatchId } },
      );
    }
    this.sink = sink;
    const pending = (): PendingInstruction[] => this.pending;
    return {
      take: () => this.pending.splice(0),
      get waiting() {
        return pending().length;
      },
      detach: (reason) => {
        if (this.sink !== sink) return;
        this.sink = undefined;
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
