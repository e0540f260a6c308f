import { decodeChunks } from "./decode-stream.js";
import { decodeOrFail, expectKeptAsRaw } from "./decoder-assertions.js";
import type { DecoderSuiteContext } from "./decoder-suite-context.js";

const EIGHT_MB = 8 * 1024 * 1024;

/** Multi-megabyte lines come back whole, whether handed over at once or split into 64 KiB pipe chunks. */
export function decoderHugeLineTests(context: DecoderSuiteContext): void {
  const huge = [
    ["an 8 MB object of an unknown type", `{"type":"huge.unknown","data":{"blob":"${"y".repeat(EIGHT_MB)}"}}`],
    ["8 MB of garbage", "z".repeat(EIGHT_MB)],
  ] as const;
  for (const [title, line] of huge) {
    context.runner.it(`keeps ${title} whole in one raw event`, () => {
      expectKeptAsRaw(decodeOrFail(context.createDecoder(), line, title), line, title);
      const chunks: string[] = [];
      for (let offset = 0; offset < line.length; offset += 64 * 1024) chunks.push(line.slice(offset, offset + 64 * 1024));
      chunks.push("\n");
      expectKeptAsRaw(decodeChunks(context.createDecoder(), chunks), line, `${title} in 64 KiB chunks`);
    });
  }
}
