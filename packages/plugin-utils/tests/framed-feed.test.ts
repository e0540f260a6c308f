import { describe, expect, it } from "vitest";
import { FramedInput, startedPid, startFeed, type FeedWatch, type InputFrameFile, type WrapperStart } from "../src/index.js";

function recordingPump(fail?: Error): { pump: FramedInput; sent: InputFrameFile[] } {
  const sent: InputFrameFile[] = [];
  const pump = new FramedInput(async (files) => {
    if (fail !== undefined) throw fail;
    sent.push(...files);
  }, "/scratch/in-1");
  return { pump, sent };
}

describe("startFeed", () => {
  it("writes the feed as frames and closes stdin with the end marker when the feed resolves", async () => {
    const { pump, sent } = recordingPump();
    const watch: FeedWatch = { failure: undefined, exited: false };
    let stopped = false;
    startFeed(
      async (stdin) => void stdin.write("hello"),
      pump,
      watch,
      () => (stopped = true),
    );
    await new Promise((resolve) => pump.once("finish", resolve));
    expect(sent.map((file) => file.path)).toEqual(["/scratch/in-1/0", "/scratch/in-1/0.ok", "/scratch/in-1/end"]);
    expect(Buffer.concat(sent.filter((file) => !file.marker).map((file) => file.content)).toString()).toBe("hello");
    expect([watch.failure, stopped]).toEqual([undefined, false]);
  });

  it("a feed failure while the process runs is kept (the first) and stops the process; after the exit it is ignored", async () => {
    const first = new Error("the host file vanished");
    const running: FeedWatch = { failure: undefined, exited: false };
    let stops = 0;
    startFeed(
      () => Promise.reject(first),
      recordingPump().pump,
      running,
      () => stops++,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect([running.failure, stops]).toEqual([first, 1]);

    const exited: FeedWatch = { failure: undefined, exited: true };
    startFeed(
      () => Promise.reject(new Error("late")),
      recordingPump().pump,
      exited,
      () => stops++,
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect([exited.failure, stops]).toEqual([undefined, 1]);
  });

  it("a frame the platform refused is the feed's failure", async () => {
    const refused = new Error("HTTP 500 on writeFiles");
    const { pump } = recordingPump(refused);
    const watch: FeedWatch = { failure: undefined, exited: false };
    startFeed(
      async (stdin) => void stdin.end("data"),
      pump,
      watch,
      () => undefined,
    );
    await new Promise((resolve) => pump.once("error", resolve));
    expect(watch.failure).toBe(refused);
  });
});

describe("startedPid", () => {
  it("waits for the wrapper's header and returns its pid", async () => {
    let start: WrapperStart | undefined;
    setTimeout(() => (start = { pid: 4242 }), 120);
    expect(await startedPid(() => start)).toBe(4242);
  });

  it("has nothing to kill when the command never started or the header never came", async () => {
    await expect(startedPid(() => ({ missing: "executable" }))).rejects.toThrow(/never started/);
    await expect(startedPid(() => undefined, 100)).rejects.toThrow(/never started/);
  });
});
