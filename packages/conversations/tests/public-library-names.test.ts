import { mkdir, open, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionBundleProfile } from "@outpost/core";
import { isOutpostError } from "@outpost/core";
import { DEFAULT_BUNDLE_MAX_BYTES, DEFAULT_BUNDLE_MAX_FILES, sessionBundleStore } from "../src/index.js";
import { localSandbox, type TestSandbox } from "./sandboxes.js";

const ID = "5f0c2a9e-1b2c-4d5e-8f90-0123456789ab";

/** A profile written against the public library's names (page 000 and its related contracts). */
const publicProfile: SessionBundleProfile = {
  specificationVersion: "v1",
  format: "My CLI+v2",
  root: { directory: ".mycli" },
  sessions: "sessions",
  buckets: true,
  include: /^(session\.json|events\.jsonl|text|data(\/.+)?)$/,
  required: ["session.json", "events.jsonl"],
  relocated: ["session.json"],
  validate: (files, id) => {
    const session = JSON.parse(files.text("session.json") ?? "null") as { id?: string } | null;
    if (session?.id !== id) return "session.json names another session";
    // A file named like the method is reached through it, and the method still works.
    if (typeof files.text !== "function") return "text() was replaced by a file";
    return files.text("absent.json") === undefined ? undefined : "an absent file has text";
  },
  bucket: (cwd, helpers) => `b_${helpers.sha256(helpers.join(cwd, "x")).slice(0, 8)}`,
  relocate: (_path, text, relocation) =>
    JSON.stringify({
      ...(JSON.parse(text) as object),
      cwd: relocation.cwd,
      target: relocation.target,
      same: relocation.cwd === relocation.to.workspace,
    }),
};

async function expectCode(promise: Promise<unknown>, code: string, text?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isOutpostError(error), `expected an OutpostError, got ${String(error)}`).toBe(true);
  expect((error as { code: string }).code).toBe(code);
  if (text) expect((error as Error).message).toMatch(text);
}

describe("session bundles accept the public library's names", () => {
  let source: TestSandbox;
  let target: TestSandbox;
  const store = sessionBundleStore(publicProfile);
  const folderOf = (sandbox: TestSandbox) => store.destination(ID, sandbox.lease, "");

  beforeEach(async () => {
    source = await localSandbox("repo");
    target = await localSandbox("elsewhere");
    const folder = folderOf(source);
    await mkdir(join(folder, "data"), { recursive: true });
    await writeFile(join(folder, "session.json"), JSON.stringify({ id: ID, cwd: source.lease.root }));
    await writeFile(join(folder, "events.jsonl"), "{}\n");
    await writeFile(join(folder, "text"), "a file named like the method");
  });
  afterEach(async () => {
    await source.dispose();
    await target.dispose();
  });

  for (const local of [false, true]) {
    it(`files.text, helpers.join, relocation.cwd and .target, any safe format name (${local ? "in process" : "node in the sandbox"})`, async () => {
      const record = await store.capture(ID, { ...source.context(), local });
      expect(record.file).toBe(join(source.workspace, ".outpost", "conversations", "My CLI+v2", `${ID}.json`));
      const located = await store.locate(ID, source.workspace);
      await store.restore(located, { ...target.context(), local });
      const destination = folderOf(target);
      expect(JSON.parse(await readFile(join(destination, "session.json"), "utf8"))).toEqual({
        id: ID,
        cwd: target.lease.root,
        target: destination,
        same: true,
      });
      expect(await readFile(join(destination, "text"), "utf8")).toBe("a file named like the method");
    });
  }

  it("a validate hook reading a missing file through text() refuses the capture", async () => {
    const strict = sessionBundleStore({
      ...publicProfile,
      validate: (files) => (files.text("session.json") === undefined ? "none" : "refused"),
    });
    await expectCode(strict.capture(ID, source.context()), "session", /refused/);
  });

  it("refuses format names that are not one safe path segment", () => {
    for (const format of ["", ".", "..", ".git", "a/b", "a\\b", "a\nb", "x".repeat(201)]) {
      expect(() => sessionBundleStore({ ...publicProfile, format }), JSON.stringify(format)).toThrow(/format/);
    }
    for (const format of ["copilot", "Kimi Code", "my-cli.v2", "é", 'quote"d'])
      expect(sessionBundleStore({ ...publicProfile, format }).format).toBe(format);
  });

  it("limits a bundle to 64 MiB and 4,096 files by default", async () => {
    expect(DEFAULT_BUNDLE_MAX_BYTES).toBe(64 * 1024 * 1024);
    expect(DEFAULT_BUNDLE_MAX_FILES).toBe(4096);
    const folder = folderOf(source);
    // Sparse: the size is refused from its metadata, before anything is read.
    const big = await open(join(folder, "data", "big.bin"), "w");
    await big.truncate(64 * 1024 * 1024 + 1);
    await big.close();
    await expectCode(store.capture(ID, source.context()), "limit", /more than 67108864 bytes/);
    await big.close().catch(() => undefined);
    await writeFile(join(folder, "data", "big.bin"), "small");
    const names = Array.from({ length: 4096 }, (_, index) => `f${index}`);
    await Promise.all(names.map((name) => writeFile(join(folder, "data", name), "")));
    await expectCode(store.capture(ID, source.context()), "limit", /more than 4096 files/);
  });
});
