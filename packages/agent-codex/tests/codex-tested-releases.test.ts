import { join } from "node:path";
import { fixtureReader } from "@outpost/testkit";
import { describe, expect, it } from "vitest";
import { CODEX_FEATURES, codexAgent } from "../src/index.js";

const { fixtureFiles, fixtureLines } = fixtureReader(join(import.meta.dirname, "fixtures"));
const recordings = [
  ...fixtureFiles("streams", ".jsonl").map((file) => ["streams", file] as const),
  ...fixtureFiles("failures", ".jsonl").map((file) => ["failures", file] as const),
];

describe("codex decoder on the tested releases", () => {
  it("has recorded output of the oldest tested and the pinned release", () => {
    for (const version of [CODEX_FEATURES.tested.oldest, CODEX_FEATURES.pinned]) {
      expect(
        recordings.some(([, file]) => file.startsWith(`codex-${version}-`)),
        version,
      ).toBe(true);
    }
  });

  it("knows every event kind they print: no unknown-kind diagnostic for any recorded line", () => {
    for (const [folder, file] of recordings) {
      const diagnostics: string[] = [];
      const decoder = codexAgent({ version: CODEX_FEATURES.pinned }).createDecoder({ diagnostic: (message) => diagnostics.push(message) });
      for (const line of fixtureLines(folder, file)) decoder.decode(line);
      expect(diagnostics, file).toEqual([]);
    }
  });
});
