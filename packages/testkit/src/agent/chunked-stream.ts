import assert from "node:assert/strict";
import type { AgentEvent } from "@outpost/core";
import { decodeChunks, knownEvents, randomChunks } from "./decode-stream.js";
import { expectKeptAsRaw, referenceEvents } from "./decoder-assertions.js";
import type { DecoderSuiteContext } from "./decoder-suite-context.js";
import { hostileLines } from "./hostile-lines.js";
import { seededRandom } from "./seeded-random.js";

/** The mixed stream through core's LineSplitter at random chunk boundaries, with some CRLF line ends. */
export function decoderChunkedStreamTests(context: DecoderSuiteContext): void {
  for (const seed of [1, 2, 3]) {
    context.runner.it(`decodes a hostile stream cut at random chunk boundaries with CRLF line ends (seed ${seed})`, () => {
      const reference = referenceEvents(context.createDecoder(), context.recorded);
      const random = seededRandom(seed);
      const pending = hostileLines(context.recorded, random);
      // Which hostile lines precede each recorded line; the rest follow the last one.
      const mixed: { line: string; recorded?: number }[] = [];
      context.recorded.forEach((line, index) => {
        while (pending.length > 0 && random() < 0.5) mixed.push({ line: pending.shift() as string });
        mixed.push({ line, recorded: index });
      });
      mixed.push(...pending.map((line) => ({ line })));
      const text = mixed.map(({ line }) => line + (random() < 0.2 ? "\r\n" : "\n")).join("");

      const events = decodeChunks(context.createDecoder(), randomChunks(text, random));

      assert.deepStrictEqual(knownEvents(events), knownEvents(reference.flat()), "the known events of the recorded lines changed");
      const expectedRaw = mixed.flatMap(({ line, recorded }) =>
        recorded === undefined
          ? [line]
          : (reference[recorded] as AgentEvent[]).flatMap((event) => (event.type === "raw" ? [event.line] : [])),
      );
      const raw = events.filter((event) => event.type === "raw");
      assert.equal(
        raw.length,
        expectedRaw.length,
        "each hostile line must come back as exactly one raw event, recorded raw lines unchanged",
      );
      raw.forEach((event, index) => expectKeptAsRaw([event], expectedRaw[index] as string, `raw event ${index + 1} of the stream`));
    });
  }

  context.runner.it("keeps an unterminated, truncated final line as raw", () => {
    const last = context.recorded.at(-1) ?? "";
    const cut = last.slice(0, Math.max(1, Math.min(50, last.length - 1)));
    const events = decodeChunks(context.createDecoder(), [cut]);
    expectKeptAsRaw(events, cut, "unterminated final line");
  });
}
