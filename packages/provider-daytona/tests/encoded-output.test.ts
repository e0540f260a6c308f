import { spawnSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdtempSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { ENCODED_OUTPUT_WRAPPER } from "../src/encoded-output-wrapper.js";
import { EncodedOutput } from "../src/encoded-output.js";

// The SDK's own demultiplexer (not in its exports map, so loaded by file path), fed frames as its WebSocket would.
const sdkRoot = dirname(createRequire(import.meta.url).resolve("@daytonaio/sdk/package.json"));
const { stdDemuxStream } = (await import(pathToFileURL(join(sdkRoot, "esm/utils/Stream.js")).href)) as {
  stdDemuxStream: (ws: unknown, onStdout: (text: string) => void, onStderr: (text: string) => void) => Promise<void>;
};

const STDOUT_MARKER = Buffer.from([1, 1, 1]);

/** What the wrapper prints for a command writing NUL, invalid UTF-8, a split emoji and no final newline. */
function encodedLog(mode: "live" | "end"): { log: string; stdout: Buffer; stderr: Buffer } {
  const base = join(mkdtempSync(join(tmpdir(), "outpost-encoded-")), "out");
  const script = "printf 'a\\000b\\377 \\360\\237'; sleep 0.1; printf '\\230\\200 end'; printf 'e\\000rr' >&2; exit 3";
  const log = spawnSync("/bin/sh", ["-c", ENCODED_OUTPUT_WRAPPER, "w", base, mode, "/bin/sh", "-c", script], { encoding: "latin1" }).stdout;
  return { log, stdout: Buffer.from("a\0b\xff \xf0\x9f\x98\x80 end", "latin1"), stderr: Buffer.from("e\0rr") };
}

/** The daemon's labelling: each line gets the stdout marker (and a newline, which it already has). */
function labelled(log: string): Buffer {
  return Buffer.concat(log.split(/(?<=\n)/).map((line) => Buffer.concat([STDOUT_MARKER, Buffer.from(line, "latin1")])));
}

async function demux(frames: readonly Buffer[]): Promise<string> {
  const ws = new EventEmitter();
  let text = "";
  const done = stdDemuxStream(
    ws,
    (chunk) => (text += chunk),
    (chunk) => (text += chunk),
  );
  for (const frame of frames) ws.emit("message", frame);
  ws.emit("close");
  await done;
  return text;
}

function decoded(log: string, replay?: string): { stdout: Buffer; stderr: Buffer; status: number | undefined } {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const output = new EncodedOutput(
    (bytes) => out.push(bytes),
    (bytes) => err.push(bytes),
  );
  output.push(log);
  if (output.end === undefined && replay !== undefined) output.replay(replay);
  return { stdout: Buffer.concat(out), stderr: Buffer.concat(err), status: output.end?.status };
}

describe("encoded command output through the daemon's labelling and the SDK's demultiplexer", () => {
  const { log, stdout, stderr } = encodedLog("live");
  const wire = labelled(log);

  it("carries NUL, invalid UTF-8, a character split in time and a missing final newline byte-exact, with the status", () => {
    expect(decoded(log)).toEqual({ stdout, stderr, status: 3 });
    expect(decoded(encodedLog("end").log)).toEqual({ stdout, stderr, status: 3 });
  });

  it("relays output larger than one line's share in several lines, in order", () => {
    const base = join(mkdtempSync(join(tmpdir(), "outpost-encoded-")), "out");
    const script = "head -c 100000 /dev/zero | tr '\\0' 'x'; printf 'end'";
    for (const mode of ["live", "end"]) {
      const log = spawnSync("/bin/sh", ["-c", ENCODED_OUTPUT_WRAPPER, "w", base, mode, "/bin/sh", "-c", script], {
        encoding: "latin1",
      }).stdout;
      expect(log.split("\n").length, mode).toBeGreaterThan(4);
      expect(decoded(log), mode).toEqual({ stdout: Buffer.from(`${"x".repeat(100_000)}end`), stderr: Buffer.alloc(0), status: 0 });
    }
  });

  it("removes its files after the trailer, in the background (the answer does not wait for it)", async () => {
    for (const mode of ["live", "end"]) {
      const directory = mkdtempSync(join(tmpdir(), "outpost-encoded-"));
      const log = spawnSync("/bin/sh", ["-c", ENCODED_OUTPUT_WRAPPER, "w", join(directory, "out"), mode, "/bin/sh", "-c", "echo hi"], {
        encoding: "latin1",
      }).stdout;
      expect(decoded(log).status, mode).toBe(0);
      for (let waited = 0; readdirSync(directory).length > 0 && waited < 5_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(readdirSync(directory), mode).toEqual([]);
    }
  });

  it("the SDK's demultiplexer really leaks marker bytes when a frame ends right after a marker", async () => {
    const leaks = [];
    for (let cut = 1; cut < wire.length; cut++) {
      const text = await demux([wire.subarray(0, cut), wire.subarray(cut)]);
      if (text.includes("\u0001") || text.includes("\u0002")) leaks.push(cut);
    }
    expect(leaks.length).toBeGreaterThan(0);
  });

  it("survives a frame boundary at every offset: exact bytes, or a gap noticed and filled from the whole log", async () => {
    for (let cut = 1; cut < wire.length; cut++) {
      const text = await demux([wire.subarray(0, cut), wire.subarray(cut)]);
      expect(decoded(text, log), `frames cut at ${cut}`).toEqual({ stdout, stderr, status: 3 });
    }
  });

  it("survives every three-way cut of the first lines (frames of 1 to 3 bytes around the markers)", async () => {
    const head = wire.subarray(0, Math.min(wire.length, 40));
    for (let first = 1; first < head.length; first++) {
      for (let second = first + 1; second < head.length; second++) {
        const frames = [wire.subarray(0, first), wire.subarray(first, second), wire.subarray(second)];
        expect(decoded(await demux(frames), log), `cuts at ${first}, ${second}`).toEqual({ stdout, stderr, status: 3 });
      }
    }
  });

  it("skips lines a resumed stream repeats and never delivers past a gap", () => {
    const lines = log.split("\n").filter((line) => line !== "");
    const repeated = [...lines.slice(0, 2), ...lines].join("\n") + "\n";
    expect(decoded(repeated)).toEqual({ stdout, stderr, status: 3 });
    const missing = [lines[0], ...lines.slice(2)].join("\n") + "\n";
    const partial = decoded(missing);
    expect(partial.status).toBeUndefined();
    expect(decoded(missing, log)).toEqual({ stdout, stderr, status: 3 });
  });
});
