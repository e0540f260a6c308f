import type { AgentEvent } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { GeminiDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";
import { hostileLines, MALFORMED_KNOWN_TYPES, seededRandom } from "./hostile-lines.js";

const STREAMS = ["gemini-0.61.0-write-file.jsonl", "gemini-0.61.0-tool-errors.jsonl"];

describe("GeminiDecoder under hostile input", () => {
  for (const stream of STREAMS) {
    it(`loses no known event of ${stream} when hostile lines are interleaved`, () => {
      const known = fixtureLines("streams", stream);
      const reference = new GeminiDecoder();
      const baseline = known.map((line) => reference.decode(line));
      const hostile = hostileLines(known);
      const random = seededRandom(known.length);
      const decoder = new GeminiDecoder();
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
    const decoder = new GeminiDecoder();
    for (const line of MALFORMED_KNOWN_TYPES) expect(() => decoder.decode(line)).not.toThrow();
    const line = '{"type":"message","role":"assistant","content":{"text":"x"}}';
    expect(decoder.decode(line)).toEqual([{ type: "raw", line, value: JSON.parse(line) }]);
  });

  it("keeps a huge line whole in its raw event", () => {
    const huge = `{"type":"unknown","text":"${"y".repeat(8 * 1024 * 1024)}"}`;
    const [event] = new GeminiDecoder().decode(huge);
    expect(event?.type).toBe("raw");
    expect((event as { line: string }).line.length).toBe(huge.length);
  });
});
