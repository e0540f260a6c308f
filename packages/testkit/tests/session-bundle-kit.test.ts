import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SessionBundleProfile } from "@outpost/core";
import { describeSessionBundleProfile } from "../src/index.js";
import { recordedSuite } from "./provider-recorded-suite.js";
import { referenceProvider } from "./provider-reference.js";
import { referenceBundleStore, type BundleStoreFlaws } from "./reference-bundle-store.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/demo", import.meta.url));
// Small limits keep the limit checks cheap; the kit is told them, as an author would.
const LIMITS = { maxBytes: 1024 * 1024, maxFiles: 64 };

const demoProfile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "demo",
  root: { directory: ".demo" },
  sessions: "sessions",
  include: /^(state\.json|log\.jsonl|notes(\/.+)?)$/,
  exclude: /\.lock$/,
  required: ["state.json", "log.jsonl"],
  relocated: ["state.json", "log.jsonl", "notes"],
};

/** Runs the cases whose title contains `part` against the reference store with `flaws`; returns failures by title. */
async function failures(flaws: BundleStoreFlaws, part = "") {
  const recorded = recordedSuite();
  describeSessionBundleProfile({
    profile: demoProfile,
    store: referenceBundleStore(demoProfile, LIMITS, flaws),
    fixture: FIXTURE,
    limits: LIMITS,
    provider: (home) => referenceProvider({}, { home }),
    runner: recorded.runner,
  });
  const failed = await recorded.run((title) => title.includes(part));
  return { cases: recorded.cases, failed: new Map([...failed].map(([title, error]) => [title.split(" > ").at(-1)!, error.message])) };
}

describe("describeSessionBundleProfile on a reference session-bundle store", () => {
  it("passes every check on a sound store", async () => {
    const { cases, failed } = await failures({});
    expect(cases.map((test) => test.title.split(" > ").at(-1))).toHaveLength(8);
    expect(cases.every((test) => !test.skipped)).toBe(true);
    expect(failed).toEqual(new Map());
  }, 300_000);

  // [flaw, the case that must fail, what its message must say]
  const flawed: ReadonlyArray<[keyof BundleStoreFlaws, string, RegExp]> = [
    ["followsLinks", "symbolic links", /outside the session reached the host/],
    ["followsLinksOnTheWay", "symbolic links", /session folder that is a symbolic link.*outside the session reached the host/],
    ["followsHardLinks", "hard links", /outside the session reached the host/],
    ["keepsStalePaths", "capture → locate → restore", /still name the source/],
    ["capturesEverything", "capture → locate → restore", /but the profile captures/],
    ["acceptsAnyId", "traversal", /succeeded; it must be refused/],
    ["noLimits", "limits", /succeeded; it must be refused with code limit/],
    ["restoresThroughLinks", "restore never writes through", /wrote through the link/],
    ["stripsLeadingDashes", "odd file names", /"notes\/-rf" is captured by the profile but was not restored/],
    ["dropsLineBreakNames", "odd file names", /"notes\/line\\nbreak\.md" is captured by the profile but was not restored/],
  ];
  it.each(flawed)(
    "fails a store with the flaw %s",
    async (flaw, part, message) => {
      const { failed } = await failures({ [flaw]: true }, part);
      expect([...failed.values()], `failures: ${JSON.stringify([...failed])}`).toEqual([expect.stringMatching(message)]);
    },
    300_000,
  );

  it("refuses a store whose format is not the profile's, and a profile of an unknown specificationVersion", () => {
    const run = (profile: SessionBundleProfile, store = referenceBundleStore(demoProfile, LIMITS)) =>
      describeSessionBundleProfile({
        profile,
        store,
        fixture: FIXTURE,
        provider: () => referenceProvider(),
        runner: recordedSuite().runner,
      });
    expect(() => run({ ...demoProfile, format: "other" })).toThrow(/format "demo" is not the profile's "other"/);
    const unknown = { ...demoProfile, specificationVersion: "v9" } as unknown as SessionBundleProfile;
    expect(() => run(unknown)).toThrow(/specificationVersion "v9"/);
  });
});
