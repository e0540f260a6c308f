import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionBundleProfile } from "@outpost/core";
import { sessionBundleStore } from "../src/index.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

// Page 000 as written: a SessionBundleProfile with exactly the signature's fields and no specificationVersion
// (an omitted version is the one the pages describe) captures a session and restores it into another
// workspace, relocated. Only the imports are added to what the page shows.
const ID = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

const profile: SessionBundleProfile = {
  format: "page-cli",
  root: { variable: "PAGE_CLI_HOME", directory: ".page-cli" },
  sessions: "sessions",
  buckets: false,
  include: /^(state\.json|wire\.jsonl|notes(\/.+)?)$/,
  exclude: /\.lock$/,
  required: ["state.json", "wire.jsonl"],
  relocated: ["state.json"],
  validate: (files, id) => ((JSON.parse(files.text("state.json") ?? "{}") as { id?: string }).id === id ? undefined : "wrong id"),
  relocate: (_path, text, relocation) => JSON.stringify({ ...(JSON.parse(text) as object), cwd: relocation.cwd }),
};

describe("a session bundle profile written as page 000 shows it", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  const store = sessionBundleStore(profile);

  beforeEach(async () => {
    [source, target] = await Promise.all([localSandbox("repo"), localSandbox("elsewhere")]);
    const folder = store.destination(ID, source.lease, "");
    await mkdir(join(folder, "notes"), { recursive: true });
    await writeFile(join(folder, "state.json"), JSON.stringify({ id: ID, cwd: source.lease.root }));
    await writeFile(join(folder, "wire.jsonl"), '{"turn":1}\n');
    await writeFile(join(folder, "notes", "a.txt"), "kept\n");
    await writeFile(join(folder, "session.lock"), "excluded\n");
  });
  afterEach(async () => {
    await Promise.all([source.dispose(), target.dispose()]);
  });

  it("captures, locates and restores a session, relocated to the new workspace", async () => {
    expect(store.specificationVersion).toBe("v1");
    const record = await store.capture(ID, source.context());
    expect(record).toMatchObject({ id: ID, format: "page-cli" });
    const located = await store.locate(ID, source.workspace);
    await store.restore(located, target.context());
    const restored = store.destination(ID, target.lease, "");
    expect(JSON.parse(await readFile(join(restored, "state.json"), "utf8"))).toEqual({ id: ID, cwd: target.lease.root });
    expect(await readFile(join(restored, "wire.jsonl"), "utf8")).toBe('{"turn":1}\n');
    expect(await readFile(join(restored, "notes", "a.txt"), "utf8")).toBe("kept\n");
    await expect(readFile(join(restored, "session.lock"), "utf8")).rejects.toThrow();
  });
});
