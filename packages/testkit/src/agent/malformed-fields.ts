import { isJsonObject, parseJsonLine } from "@outpost/core";
import { decodeOrFail } from "./decoder-assertions.js";
import type { DecoderSuiteContext } from "./decoder-suite-context.js";

// Values of every JSON kind: each field of a recorded line is replaced by the ones of another kind.
const WRONG_VALUES: readonly unknown[] = [null, 7, -1.5e308, "text", true, [], [null, 1, "x"], {}, { text: 3, type: 9 }];

/** Lines of known types whose fields have the wrong types must not make the decoder throw. */
export function decoderMalformedFieldTests(context: DecoderSuiteContext): void {
  context.runner.it("never throws on recorded lines whose fields have the wrong types", () => {
    const decoder = context.createDecoder();
    let decoded = 0;
    for (const line of [...context.malformed, ...mutatedLines(context.recorded)]) {
      decodeOrFail(decoder, line, "malformed line");
      decoded++;
    }
    if (decoded === 0) throw new Error("no recorded line is a JSON object: pass the lines of a real recorded stream as `recorded`");
  });
}

/** Every recorded object with one field at a time (nested one level too) swapped for each wrong value. */
function mutatedLines(recorded: readonly string[]): string[] {
  const lines: string[] = [];
  for (const line of recorded) {
    const value = parseJsonLine(line);
    if (!value) continue;
    for (const [key, field] of Object.entries(value)) {
      // `type` selects the branch under test: keep it so the wrong fields reach the known-type code.
      if (key === "type") continue;
      for (const wrong of WRONG_VALUES) lines.push(JSON.stringify({ ...value, [key]: wrong }));
      if (!isJsonObject(field)) continue;
      for (const inner of Object.keys(field)) {
        if (inner === "type") continue;
        for (const wrong of WRONG_VALUES) lines.push(JSON.stringify({ ...value, [key]: { ...field, [inner]: wrong } }));
      }
    }
  }
  return lines;
}
