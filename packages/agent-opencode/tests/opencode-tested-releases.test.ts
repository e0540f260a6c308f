import { join } from "node:path";
import { fixtureReader } from "@outpost/testkit";
import { describe, expect, it } from "vitest";
import { OPENCODE_FEATURES, opencodeAgent } from "../src/index.js";

const { fixtureFiles, fixtureLines } = fixtureReader(join(import.meta.dirname, "fixtures"));
const recordings = [
  ...fixtureFiles("streams", ".jsonl").map((file) => ["streams", file] as const),
  ...fixtureFiles("failures", ".jsonl").map((file) => ["failures", file] as const),
];

describe("opencode decoder on the tested releases", () => {
  it("has recorded output of the oldest tested and the pinned release", () => {
    for (const version of [OPENCODE_FEATURES.tested.oldest, OPENCODE_FEATURES.pinned]) {
      expect(
        recordings.some(([, file]) => file.startsWith(`opencode-${version}-`)),
        version,
      ).toBe(true);
    }
  });

  it("knows every event kind they print: no unknown-kind diagnostic for any recorded line", () => {
    for (const [folder, file] of recordings) {
      const diagnostics: string[] = [];
      const decoder = opencodeAgent({ version: OPENCODE_FEATURES.pinned }).createDecoder({
        diagnostic: (message) => diagnostics.push(message),
      });
      for (const line of fixtureLines(folder, file)) decoder.decode(line);
      expect(diagnostics, file).toEqual([]);
    }
  });
});
