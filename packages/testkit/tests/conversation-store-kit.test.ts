import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { SessionBundleProfile } from "@outpost/core";
import { describeConversationStore } from "../src/index.js";
import { recordedSuite } from "./provider-recorded-suite.js";
import { referenceProvider } from "./provider-reference.js";
import { referenceBundleStore, type BundleStoreFlaws } from "./reference-bundle-store.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/sessions/demo", import.meta.url));
const LIMITS = { maxBytes: 1024 * 1024, maxFiles: 64 };
const profile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "demo",
  root: { directory: ".demo" },
  sessions: "sessions",
  include: /^(state\.json|log\.jsonl|notes(\/.+)?)$/,
  required: ["state.json", "log.jsonl"],
  relocated: ["state.json", "log.jsonl", "notes"],
};

async function failures(flaws: BundleStoreFlaws): Promise<string[]> {
  const recorded = recordedSuite();
  describeConversationStore({
    store: referenceBundleStore(profile, LIMITS, flaws),
    fixture: FIXTURE,
    provider: (home) => referenceProvider({}, { home }),
    runner: recorded.runner,
  });
  return [...(await recorded.run()).values()].map((error) => error.message);
}

describe("describeConversationStore on a reference store", () => {
  it("passes a sound store, fails one that leaves stale paths and one that takes any id", async () => {
    expect(await failures({})).toEqual([]);
    expect(await failures({ keepsStalePaths: true })).toEqual([expect.stringMatching(/still name the source sandbox/)]);
    expect(await failures({ acceptsAnyId: true })).toEqual([
      expect.stringMatching(/succeeded; it must be refused|failed without an OutpostError/),
    ]);
  }, 120_000);
});
