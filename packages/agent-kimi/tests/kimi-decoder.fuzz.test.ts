import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { kimiAgent } from "../src/index.js";
import { decodeChunks, knownEvents } from "./decode-stream.js";
import { hostileLines, randomChunks, seededRandom } from "./hostile-lines.js";

const recorded = ["streams/kimi-documented-print-mode.jsonl", "streams/kimi-constructed-parts.jsonl"]
  .map((name) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), "utf8"))
  .join("");

describe("kimi decoder under hostile input", () => {
  for (const seed of [1, 2, 3]) {
    it(`never crashes and loses no known event (seed ${seed})`, () => {
      const random = seededRandom(seed);
      const valid = recorded.trim().split("\n");
      const hostile = hostileLines(valid, random);
      // Interleave hostile lines at random places between the recorded ones.
      const mixed: string[] = [];
      const pending = [...hostile];
      for (const line of valid) {
        while (pending.length > 0 && random() < 0.5) mixed.push(pending.shift() as string);
        mixed.push(line);
      }
      mixed.push(...pending);
      const text = mixed.map((line) => line + (random() < 0.2 ? "\r\n" : "\n")).join("");

      const expected = knownEvents(decodeChunks(kimiAgent().createDecoder(), [recorded]));
      const events = decodeChunks(kimiAgent().createDecoder(), randomChunks(text, random));

      expect(knownEvents(events)).toEqual(expected);
      expect(events.filter((event) => event.type === "raw")).toHaveLength(mixed.length - valid.length + (valid.length - countKnownLines(valid)));
    });
  }

  it("keeps the huge lines whole in raw events", () => {
    const decoder = kimiAgent().createDecoder();
    const huge = '{"type":"huge.unknown","data":{"blob":"' + "y".repeat(8 * 1024 * 1024) + '"}}';
    const [event] = decoder.decode(huge);
    expect(event?.type).toBe("raw");
    expect(event?.type === "raw" && event.line.length).toBe(huge.length);
  });

  it("survives an unterminated final line", () => {
    const line = recorded.trim().split("\n").at(-1) as string;
    const events = decodeChunks(kimiAgent().createDecoder(), [line.slice(0, 50)]);
    expect(events).toEqual([{ type: "raw", line: line.slice(0, 50) }]);
  });
});

function countKnownLines(lines: readonly string[]): number {
  const decoder = kimiAgent().createDecoder();
  return lines.filter((line) => decoder.decode(line).some((event) => event.type !== "raw")).length;
}
