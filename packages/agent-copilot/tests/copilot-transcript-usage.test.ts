import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { copilotTranscriptUsage } from "../src/index.js";

const events = readFileSync(new URL("./fixtures/streams/copilot-1.0.102-events-after-turn2.jsonl", import.meta.url), "utf8");

describe("copilotTranscriptUsage", () => {
  it("sums the usage records of the last run only (turn 2 after session.resume)", () => {
    expect(copilotTranscriptUsage(events)).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("sums every request of a turn (turn 1 made two model calls)", () => {
    const turn1 = events
      .split("\n")
      .slice(
        0,
        events.split("\n").findIndex((line) => line.includes('"type":"session.resume"')),
      )
      .join("\n");
    expect(copilotTranscriptUsage(turn1)).toEqual({ inputTokens: 200, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("reads events.jsonl out of a captured session bundle, utf8 or base64", () => {
    for (const [encoding, data] of [
      ["utf8", events],
      ["base64", Buffer.from(events).toString("base64")],
    ] as const) {
      const bundle = JSON.stringify({
        outpost: "session-bundle",
        version: 1,
        format: "copilot",
        id: "x",
        bucket: null,
        files: [
          { path: "workspace.yaml", mode: 0o600, encoding: "utf8", data: "id: x\n" },
          { path: "events.jsonl", mode: 0o600, encoding, data },
        ],
      });
      expect(copilotTranscriptUsage(bundle)).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
    }
  });

  it("also finds events.jsonl in a document keyed by file name", () => {
    const document = JSON.stringify({ files: { "events.jsonl": events } });
    expect(copilotTranscriptUsage(document)).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("says usage is incomplete for empty, corrupt or usage-free transcripts (never `{}`)", () => {
    expect(copilotTranscriptUsage("")).toEqual({ incomplete: true });
    expect(copilotTranscriptUsage("{corrupt\n\u0000\n")).toEqual({ incomplete: true });
    expect(copilotTranscriptUsage('{"type":"session.start","data":{}}')).toEqual({ incomplete: true });
    expect(copilotTranscriptUsage('{"type":"session.usage_record","data":{"usage":{"inputTokens":"NaN"}}}')).toEqual({ incomplete: true });
  });
});
