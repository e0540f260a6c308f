import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { FramedInput, type InputFrameFile } from "../src/index.js";

/** A pump whose every batch is recorded; each send takes `sendMs`, as a request would. */
function recorder(ordered: boolean, sendMs = 1): { pump: FramedInput; batches: InputFrameFile[][] } {
  const batches: InputFrameFile[][] = [];
  const pump = new FramedInput(
    async (files) => {
      batches.push([...files]);
      await new Promise((resolve) => setTimeout(resolve, sendMs));
    },
    "/in",
    { ordered },
  );
  return { pump, batches };
}

const name = (file: InputFrameFile) => file.path.slice("/in/".length);

/** Writes `total` bytes in 64 KiB chunks as a pipe delivers them, honouring backpressure, then ends. */
async function stream(pump: FramedInput, total: number): Promise<Buffer> {
  const written: Buffer[] = [];
  for (let offset = 0; offset < total; offset += 64 * 1024) {
    const chunk = Buffer.alloc(Math.min(64 * 1024, total - offset), offset / (64 * 1024));
    written.push(chunk);
    if (!pump.write(chunk)) await once(pump, "drain");
  }
  pump.end();
  await once(pump, "finish");
  return Buffer.concat(written);
}

describe("FramedInput", () => {
  it("unordered: a 20 MiB stream goes as a few large frames; a marker only names a frame an earlier batch carried", async () => {
    const { pump, batches } = recorder(false);
    const written = await stream(pump, 20 * 1024 * 1024);
    const data = batches.flat().filter((file) => !file.marker);
    expect(Buffer.concat(data.map((file) => file.content)).equals(written)).toBe(true);
    expect(data.length).toBeLessThanOrEqual(4);
    const landed = new Set<string>();
    for (const batch of batches) {
      for (const marker of batch.filter((file) => file.marker && name(file) !== "end")) {
        expect(landed.has(name(marker).replace(/\.ok$/, ""))).toBe(true);
      }
      for (const file of batch.filter((each) => !each.marker)) landed.add(name(file));
    }
    const last = batches.at(-1)!;
    const end = last.find((file) => name(file) === "end");
    expect(end?.content.toString()).toBe(`${data.length}\n`);
    expect(batches.flat().filter((file) => name(file).endsWith(".ok"))).toHaveLength(data.length);
  });

  it("ordered: a frame travels with its marker, and end with the last", async () => {
    const { pump, batches } = recorder(true);
    await stream(pump, 3 * 1024 * 1024);
    for (const batch of batches) {
      const frames = batch.filter((file) => !file.marker).map(name);
      expect(batch.filter((file) => name(file).endsWith(".ok")).map(name)).toEqual(frames.map((frame) => `${frame}.ok`));
    }
    expect(batches.at(-1)!.map(name).at(-1)).toBe("end");
  });

  it("live input: a few bytes go at once, the marker right behind them, while stdin stays open", async () => {
    const { pump, batches } = recorder(false);
    pump.write("steer: stop\n");
    while (batches.flat().filter((file) => file.marker).length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    expect(batches.flat().map(name)).toEqual(["0", "0.ok"]);
    pump.end();
    await once(pump, "finish");
    expect(batches.flat().map(name)).toEqual(["0", "0.ok", "end"]);
  });

  it("a trickle that never pauses still ships: a frame waits a bounded time for more", async () => {
    const { pump, batches } = recorder(false);
    const timer = setInterval(() => pump.write("."), 1);
    try {
      // Without the bound the first frame would wait for a pause that never comes (the test times out).
      while (batches.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(batches[0]!.map(name)).toEqual(["0"]);
    } finally {
      clearInterval(timer);
    }
    pump.end();
    await once(pump, "finish");
  });
});
