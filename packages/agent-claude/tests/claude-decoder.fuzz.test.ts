import type { AgentEvent } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { ClaudeDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";
import { hostileLines, MALFORMED_KNOWN_TYPES, seededRandom } from "./hostile-lines.js";

const STREAMS = ["claude-2.1.332-write-file.jsonl", "claude-2.1.332-tool-errors.jsonl"];

describe("ClaudeDecoder under hostile input", () => {
  for (const stream of STREAMS) {
    it(`loses no known event of ${stream} when hostile lines are interleaved`, () => {
      const known = fixtureLines("streams", stream);
      const baseline = known.map((line) => new ClaudeDecoder().decode(line));
      const hostile = hostileLines(known);
      const random = seededRandom(known.length);
      const decoder = new ClaudeDecoder();
      const fromKnown: AgentEvent[][] = [];
      let rawFromHostile = 0;
      let cursor = 0;
      for (const line of known) {
        while (cursor < hostile.length && random() < 0.7) {
          const events = decoder.decode(hostile[cursor] ?? "");
          // Every non-blank hostile line is kept, as raw, and never turns into a known event.
          if ((hostile[cursor] ?? "").trim() !== "") expect(events.map((event) => event.type)).toEqual(["raw"]);
          rawFromHostile += events.length;
          cursor++;
        }
        fromKnown.push(decoder.decode(line));
      }
      for (; cursor < hostile.length; cursor++) rawFromHostile += decoder.decode(hostile[cursor] ?? "").length;
      expect(fromKnown).toEqual(baseline);
      expect(rawFromHostile).toBe(hostile.filter((line) => line.trim() !== "").length);
    });
  }

  it("never throws on known types with fields of the wrong type", () => {
    const decoder = new ClaudeDecoder();
    for (const line of MALFORMED_KNOWN_TYPES) expect(() => decoder.decode(line)).not.toThrow();
    expect(decoder.decode('{"type":"assistant","message":5}')).toEqual([{ type: "raw", line: '{"type":"assistant","message":5}', value: { type: "assistant", message: 5 } }]);
  });

  it("keeps a huge line whole in its raw event", () => {
    const huge = `{"type":"unknown","text":"${"y".repeat(8 * 1024 * 1024)}"}`;
    const [event] = new ClaudeDecoder().decode(huge);
    expect(event?.type).toBe("raw");
    expect((event as { line: string }).line.length).toBe(huge.length);
  });
});
