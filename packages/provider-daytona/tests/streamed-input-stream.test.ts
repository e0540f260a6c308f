import { PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import { describe, expect, it } from "vitest";
import { StreamedInput } from "../src/streamed-input.js";

/** Everything a readable gives until it ends, or the error it failed with. */
async function drained(stream: NodeJS.ReadableStream): Promise<Buffer | Error> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } catch (error) {
    return error as Error;
  }
}

describe("StreamedInput: a finite stdin sent while it is written", () => {
  it("within the limit: the frame carries every byte as it comes, and the shape is its size", async () => {
    const input = new StreamedInput(1024);
    const frame = drained(input.frame);
    const parts = [Buffer.from("a\u0000b"), Buffer.from("\u00e9".repeat(100)), Buffer.from("end")];
    await pipeline(async function* () {
      yield* parts;
    }, input);
    expect(await input.shape).toEqual({ size: Buffer.concat(parts).length });
    expect(await frame).toEqual(Buffer.concat(parts));
  });

  it("beyond the limit: the frame fails, and the stream handed on gets what was held first, then the rest", async () => {
    const input = new StreamedInput(8);
    const frame = drained(input.frame);
    const writing = pipeline(async function* () {
      yield Buffer.from("12345");
      yield Buffer.from("67890");
      yield Buffer.from("abc");
    }, input);
    const shape = await input.shape;
    expect(input.overflowed).toBe(true);
    expect(await frame).toBeInstanceOf(Error);
    if (!("stream" in shape)) throw new Error("expected a stream to hand on");
    const target = new PassThrough();
    const received = drained(target);
    await shape.stream(target);
    await writing;
    target.end();
    expect((await received).toString()).toBe("1234567890abc");
  });

  it("a failed feed fails the shape and the frame with its error", async () => {
    const input = new StreamedInput(1024);
    const frame = drained(input.frame);
    input.write(Buffer.from("partial"));
    const failure = new Error("a host file changed while it was packed");
    input.failed(failure);
    await expect(input.shape).rejects.toBe(failure);
    expect(input.feedFailure).toBe(failure);
    expect(await frame).toBe(failure);
  });
});
