import type { AgentEvent } from "@outpost/core";
import { describe, expect, it } from "vitest";
import { CodexDecoder } from "../src/index.js";
import { fixtureLines } from "./fixtures.js";
import { hostileLines, MALFORMED_KNOWN_TYPES, seededRandom } from "./hostile-lines.js";

const STREAMS = ["codex-0.171.0-write-file.jsonl", "codex-0.171.0-tool-failure-and-patch.jsonl", "codex-0.171.0-turn-failed-400.jsonl"];

describe("CodexDecoder under hostile input", () => {
  for (const stream of STREAMS) {
    it(`loses no known event of ${stream} when hostile lines are interleaved`, () => {
      const known = fixtureLines("streams", stream);
      const reference = new CodexDecoder();
      const baseline = known.map((line) => reference.decode(line));
      const hostile = hostileLines(known);
      const random = seededRandom(known.length * 7);
      const decoder = new CodexDecoder();
      const fromKnown: AgentEvent[][] = [];
      let cursor = 0;
      for (const line of known) {
        while (cursor < hostile.length && random() < 0.7) {
          const events = decoder.decode(hostile[cursor] ?? "");
          if ((hostile[cursor] ?? "").trim() !== "") expect(events.map((event) => event.type)).toEqual(["raw"]);
          cursor++;
        }
        fromKnown.push(decoder.decode(line));
      }
      expect(fromKnown).toEqual(baseline);
    });
  }

  it("never throws on known types with fields of the wrong type", () => {
    const decoder = new CodexDecoder();
    for (const line of MALFORMED_KNOWN_TYPES) expect(() => decoder.decode(line)).not.toThrow();
    expect(decoder.decode('{"type":"turn.failed","error":"boom"}')).toEqual([
      { type: "failure", message: "turn failed" },
      { type: "finished", text: "turn failed", isError: true },
    ]);
  });

  it("keeps a huge line whole in its raw event", () => {
    const huge = `{"type":"item.updated","item":{"text":"${"z".repeat(8 * 1024 * 1024)}"}}`;
    const [event] = new CodexDecoder().decode(huge);
    expect(event).toMatchObject({ type: "raw" });
    expect((event as { line: string }).line.length).toBe(huge.length);
  });
});
