import { describe, expect, it } from "vitest";
import { FrameDemuxer } from "../src/frame-demuxer.js";
import { TailBuffer } from "@outpost/plugin-utils";

function frame(kind: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header[0] = kind;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe("FrameDemuxer", () => {
  it("splits stdout and stderr byte-exact whatever the chunk boundaries", async () => {
    const out = Buffer.from("out ✓ \0 bytes 😀");
    const err = Buffer.from([0, 255, 128, 10]);
    const stream = Buffer.concat([frame(1, out), frame(2, err), frame(1, Buffer.alloc(0)), frame(1, Buffer.from("tail"))]);
    for (const size of [1, 3, 7, 8, 9, stream.length]) {
      const got = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
      const demuxer = new FrameDemuxer((channel, chunk) => void got[channel].push(Buffer.from(chunk)));
      for (let offset = 0; offset < stream.length; offset += size) demuxer.write(stream.subarray(offset, offset + size));
      await new Promise<void>((resolve) => demuxer.end(resolve));
      expect(Buffer.concat(got.stdout)).toEqual(Buffer.concat([out, Buffer.from("tail")]));
      expect(Buffer.concat(got.stderr)).toEqual(err);
    }
  });

  it("waits for a slow consumer before the next frame", async () => {
    const order: string[] = [];
    const demuxer = new FrameDemuxer(async (_channel, chunk) => {
      order.push(`start ${chunk.toString()}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      order.push(`end ${chunk.toString()}`);
    });
    demuxer.write(Buffer.concat([frame(1, Buffer.from("a")), frame(1, Buffer.from("b"))]));
    await new Promise<void>((resolve) => demuxer.end(resolve));
    expect(order).toEqual(["start a", "end a", "start b", "end b"]);
  });

  it("output that stops inside a frame (header or payload cut) fails instead of passing for complete", async () => {
    const whole = Buffer.concat([frame(1, Buffer.from("complete")), frame(1, Buffer.from("cut short"))]);
    for (const cut of [whole.length - 3, frame(1, Buffer.from("complete")).length + 5]) {
      const got: Buffer[] = [];
      const demuxer = new FrameDemuxer((_channel, chunk) => void got.push(Buffer.from(chunk)));
      const failed = new Promise<Error>((resolve) => demuxer.once("error", resolve));
      demuxer.end(whole.subarray(0, cut));
      expect((await failed).message).toMatch(/ended inside a frame/);
      expect(Buffer.concat(got).toString()).toBe("complete");
    }
  });
});

describe("TailBuffer", () => {
  it("keeps the last bytes and drops a UTF-8 sequence cut by the limit", () => {
    const tail = new TailBuffer(4);
    tail.push(Buffer.from("abc"));
    tail.push(Buffer.from("😀z"));
    expect(tail.text()).toBe("z");
    const exact = new TailBuffer(5);
    exact.push(Buffer.from("ab"));
    exact.push(Buffer.from("😀"));
    expect(exact.text()).toBe("b😀");
    const whole = new TailBuffer(100);
    whole.push(Buffer.from([0x80, 0x41]));
    expect(whole.text()).toBe("\uFFFDA");
  });
});
