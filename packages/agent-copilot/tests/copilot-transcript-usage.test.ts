import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { copilotTranscriptUsage } from "../src/index.js";

const events = readFileSync(new URL("./fixtures/streams/copilot-1.0.102-events-after-turn2.jsonl", import.meta.url), "utf8");

describe("copilotTranscriptUsage", () => {
  it("sums the usage records of the last run only (turn 2 after session.resume)", () => {
    expect(copilotTranscriptUsage(events)).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("sums every request of a turn (turn 1 made two model calls)", () => {
    const turn1 = events.split("\n").slice(0, events.split("\n").findIndex((line) => line.includes('"type":"session.resume"'))).join("\n");
    expect(copilotTranscriptUsage(turn1)).toEqual({ inputTokens: 200, outputTokens: 40, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("reads events.jsonl out of a captured bundle document", () => {
    const bundle = JSON.stringify({ format: "copilot", id: "x", files: { "workspace.yaml": "id: x\n", "events.jsonl": events } });
    expect(copilotTranscriptUsage(bundle)).toEqual({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 });
  });

  it("returns undefined for empty, corrupt or usage-free transcripts", () => {
    expect(copilotTranscriptUsage("")).toBeUndefined();
    expect(copilotTranscriptUsage("{corrupt\n\u0000\n")).toBeUndefined();
    expect(copilotTranscriptUsage('{"type":"session.start","data":{}}')).toBeUndefined();
    expect(copilotTranscriptUsage('{"type":"session.usage_record","data":{"usage":{"inputTokens":"NaN"}}}')).toBeUndefined();
  });
});
