import { StringDecoder } from "node:string_decoder";
import { DEFAULT_RETAIN_BYTES } from "@outpost/core";
import type { Command, CommandChannel } from "@outpost/core";
import { TailBuffer } from "./tail-buffer.js";

/**
 * Rule: one output channel of a command keeps its retained tail and hands `observe` whole characters, whether
 * the platform delivers bytes (a character may be split between chunks: it is held until complete) or text.
 * An observer's exception never breaks the run.
 */
export class CommandOutput {
  private readonly tail: TailBuffer;
  private readonly decoder = new StringDecoder("utf8");

  constructor(
    private readonly channel: CommandChannel,
    retain: number,
    private readonly observe: Command["observe"],
  ) {
    this.tail = new TailBuffer(retain);
  }

  push(chunk: Buffer | string): void {
    if (typeof chunk === "string") {
      this.tail.push(Buffer.from(chunk, "utf8"));
      this.deliver(chunk);
      return;
    }
    this.tail.push(chunk);
    this.deliver(this.decoder.write(chunk));
  }

  /** Delivers what a byte stream left undecoded (an incomplete last character). */
  end(): void {
    this.deliver(this.decoder.end());
  }

  /** The retained tail as text. */
  text(): string {
    return this.tail.text();
  }

  private deliver(text: string): void {
    if (this.observe === undefined || text === "") return;
    try {
      this.observe(this.channel, text);
    } catch {
      // The contract: an observer's exception never breaks the run.
    }
  }
}

/** Both channels of `command`, retaining `command.retain` bytes each (default DEFAULT_RETAIN_BYTES). */
export function commandOutputs(command: Command): { readonly stdout: CommandOutput; readonly stderr: CommandOutput } {
  const retain = command.retain ?? DEFAULT_RETAIN_BYTES;
  return { stdout: new CommandOutput("stdout", retain, command.observe), stderr: new CommandOutput("stderr", retain, command.observe) };
}
