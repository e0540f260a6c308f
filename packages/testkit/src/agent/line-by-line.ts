import assert from "node:assert/strict";
import type { AgentEvent } from "@outpost/core";
import { decodeOrFail, expectKeptAsRaw, referenceEvents } from "./decoder-assertions.js";
import type { DecoderSuiteContext } from "./decoder-suite-context.js";
import { hostileLines } from "./hostile-lines.js";
import { seededRandom } from "./seeded-random.js";

/** Hostile lines interleaved with the recorded ones, one `decode()` call per line. */
export function decoderLineByLineTests(context: DecoderSuiteContext): void {
  for (const seed of [1, 2]) {
    context.runner.it(`keeps every hostile line as one raw event and the recorded events unchanged (seed ${seed})`, () => {
      const expected = referenceEvents(context.createDecoder(), context.recorded);
      const random = seededRandom(seed);
      const hostile = hostileLines(context.recorded, random);
      const decoder = context.createDecoder();
      const actual: AgentEvent[][] = [];
      let cursor = 0;
      const feedHostile = (chance: number) => {
        while (cursor < hostile.length && random() < chance) {
          const line = hostile[cursor++] as string;
          expectKeptAsRaw(decodeOrFail(decoder, line, `hostile line ${cursor}`), line, `hostile line ${cursor}`);
        }
      };
      context.recorded.forEach((line, index) => {
        feedHostile(0.7);
        actual.push(decodeOrFail(decoder, line, `recorded line ${index + 1}`));
      });
      feedHostile(1);
      assert.deepStrictEqual(actual, expected, "the events of the recorded lines changed when hostile lines were interleaved");
    });
  }
}
