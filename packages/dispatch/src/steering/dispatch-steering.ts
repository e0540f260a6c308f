import { PassThrough } from "node:stream";
import { OutpostError, type AgentAdapter, type AgentEvent, type AgentLiveSession, type AgentTurn, type SandboxLease } from "@outpost/core";
import type { LiveTurnInput } from "../turn/live-turn-input.js";
import type { PendingInstruction, SteeringAttachment, SteeringDelivery } from "./steering.js";
import type { HeldSteering } from "./held-steering.js";

/** What the engine is told for each delivered instruction (the `steer` event, a span event). */
export type SteerReport = (delivery: SteeringDelivery, pass: number, text: string) => void;

/** The steering of one running turn, handed to runTurn. */
export interface TurnSteering {
  /** The turn's live input, when instructions are injected into it. */
  readonly live?: LiveTurnInput;
  /** Aborted to stop the agent so that its conversation is resumed with the waiting instructions. */
  readonly interrupt: AbortSignal;
  /** Every event of the turn: the conversation id makes resuming possible, the final event ends live input. */
  onEvent(event: AgentEvent): void;
  /** The turn's process ended. */
  close(): void;
}

/**
 * A steering while it is attached to one dispatch: routes each instruction to the turn running now, by
 * injection where the agent takes live input on this lease, else by stopping and resuming its conversation.
 * Instructions sent between turns wait for the next one; once the turns are over they are refused.
 */
export class DispatchSteering {
  private readonly attachment: SteeringAttachment;
  private turn: ActiveTurn | undefined;
  private over: string | undefined;

  constructor(
    held: HeldSteering,
    readonly dispatchId: string,
    private readonly report: SteerReport,
  ) {
    this.attachment = held.attachment;
    held.bind(dispatchId, () => this.route());
  }

  /** Starts routing instructions into one turn. `conversationId`: known already when the turn resumes one. */
  open(agent: AgentAdapter, lease: SandboxLease, pass: number, conversationId?: string): TurnSteering {
    const turn = new ActiveTurn(agent, lease, pass, conversationId, () => this.route());
    this.turn = turn;
    this.attachment.mark("attached");
    queueMicrotask(() => this.route());
    return {
      ...(turn.input ? { live: turn.liveInput(turn.input) } : {}),
      interrupt: turn.interrupter.signal,
      onEvent: (event) => turn.onEvent(event),
      close: () => {
        turn.close();
        if (this.turn === turn) {
          this.turn = undefined;
          this.attachment.mark("pending");
        }
      },
    };
  }

  /** Instructions that arrived during the last turn and were not injected: they resume its conversation. */
  takeForResume(agent: AgentAdapter): PendingInstruction[] {
    // As continuation and repairs do, an agent that does not say it cannot resume is tried.
    return agent.resumable !== false ? this.attachment.take() : [];
  }

  /** No turn follows: waiting and later instructions are refused with `reason`. */
  turnsOver(reason: string): void {
    this.over = reason;
    for (const instruction of this.attachment.take()) instruction.refuse(reason);
  }

  /** The dispatch ended: the steering can be attached again. */
  detach(reason: string): void {
    this.turn?.close();
    this.attachment.detach(reason);
  }

  /** Reports an instruction that resumed a conversation. */
  resumed(instruction: PendingInstruction, pass: number): void {
    instruction.deliver({ delivery: "resumed", dispatchId: this.dispatchId, pass });
    this.report("resumed", pass, instruction.text);
  }

  private route(): void {
    if (this.over !== undefined) {
      for (const instruction of this.attachment.take()) instruction.refuse(this.over);
      return;
    }
    const turn = this.turn;
    if (!turn || this.attachment.waiting === 0) return;
    if (turn.injecting) {
      for (const instruction of this.attachment.take()) this.inject(turn, instruction);
      return;
    }
    if (turn.mode === "none") {
      for (const instruction of this.attachment.take()) instruction.refuse(turn.why());
      return;
    }
    // Resumed: the agent is stopped once its conversation is known; the instructions then resume it.
    if (turn.mode === "resumed" && turn.conversationId !== undefined) turn.interrupter.abort();
  }

  /** Writes one instruction into the running turn; delivered once the CLI took it (where it answers), else refused with its reason. */
  private inject(turn: ActiveTurn, instruction: PendingInstruction): void {
    const delivered = (): void => {
      instruction.deliver({ delivery: "injected", dispatchId: this.dispatchId, pass: turn.pass });
      this.report("injected", turn.pass, instruction.text);
    };
    let accepted: Promise<void> | undefined;
    try {
      accepted = turn.write(instruction.text);
    } catch (error) {
      instruction.refuse(refusalReason(error));
      return;
    }
    if (accepted === undefined) delivered();
    else accepted.then(delivered, (error: unknown) => instruction.refuse(refusalReason(error)));
  }
}

/** Why the agent refused an instruction: an OutpostError's `details.reason`, else its message. */
function refusalReason(error: unknown): string {
  const reason = OutpostError.isInstance(error) ? error.details?.["reason"] : undefined;
  if (typeof reason === "string") return reason;
  return error instanceof Error ? error.message : String(error);
}

class ActiveTurn {
  readonly mode: "injected" | "resumed" | "none";
  readonly input: PassThrough | undefined;
  readonly interrupter = new AbortController();
  private ended = false;
  private session: AgentLiveSession | undefined;

  constructor(
    private readonly agent: AgentAdapter,
    lease: SandboxLease,
    readonly pass: number,
    public conversationId: string | undefined,
    private readonly changed: () => void,
  ) {
    this.mode = agent.liveInput && lease.liveInput === true ? "injected" : agent.resumable !== false ? "resumed" : "none";
    this.input = this.mode === "injected" ? new PassThrough() : undefined;
  }

  /**
   * Live input is open from the session's start until the agent's final event: an instruction written later
   * would start another turn.
   */
  get injecting(): boolean {
    return this.mode === "injected" && !this.ended && this.session !== undefined;
  }

  /** What runTurn drives: it opens the agent's session for the turn and shows it every stdout line. */
  liveInput(input: PassThrough): LiveTurnInput {
    return {
      input,
      open: (turn: AgentTurn) => {
        this.session = this.agent.liveInput!.open(turn);
        queueMicrotask(this.changed);
        return this.session;
      },
      line: (line: string) => this.send(this.session?.reply?.(line)),
    };
  }

  /** Writes an instruction; the promise, when the CLI answers instructions, settles with its answer. */
  write(text: string): Promise<void> | undefined {
    const message = this.session!.message(text);
    this.send(message.write);
    return message.accepted;
  }

  onEvent(event: AgentEvent): void {
    if (event.type === "conversation") {
      this.conversationId = event.id;
      this.changed();
    } else if (event.type === "finished") this.endInput();
  }

  /** The turn's process ended: its session refuses what it did not answer. */
  close(): void {
    this.endInput();
    this.session?.close?.();
  }

  private send(bytes: string | undefined): void {
    if (bytes && !this.ended) this.input?.write(bytes);
  }

  private endInput(): void {
    if (this.ended) return;
    this.ended = true;
    this.input?.end();
  }

  why(): string {
    const input = this.agent.liveInput
      ? `the sandbox provider gives no live input (lease.liveInput is not true)`
      : `${this.agent.name} takes no instructions during a turn`;
    return `${input}, and ${this.agent.name} cannot resume its conversation (resumable is false), so it can be neither injected nor resumed`;
  }
}
