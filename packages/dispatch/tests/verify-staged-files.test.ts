import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError, type FileManifestEntry } from "@outpost/core";
import { localProvider } from "@outpost/provider-local";
import { sandboxManifest } from "../src/remote/sandbox-manifest.js";
import { verifyStagedFiles } from "../src/remote/verify-staged-files.js";

// Page 002: files come back SHA-256 checked. The manifest of a lease without fileTransfers is made in the
// sandbox by the shared script, in as many commands as the paths need; every staged file is read again
// against it on the host.
const scratch = mkdtempSync(join(tmpdir(), "outpost-verify-staged-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

describe("the manifest of a lease without fileTransfers, and the host's check against it", () => {
  it("lists many paths in several commands, with modes, sizes and SHA-256 of files and link targets", async () => {
    const root = join(scratch, "root");
    mkdirSync(join(root, "nested"), { recursive: true });
    // Long names: over 64 KiB of paths, so the manifest takes more than one command.
    const names = Array.from({ length: 900 }, (_, index) => `nested/${"n".repeat(80)}-${index}.txt`);
    for (const name of names) writeFileSync(join(root, name), name);
    symlinkSync("nested", join(root, "link"));
    const lease = await localProvider({ home: "private" }).acquire({
      repository: root,
      directory: root,
      gitDirectories: [],
      variables: {},
    });
    try {
      const manifest = await sandboxManifest(lease, [...names, "link"]);
      expect(manifest).toHaveLength(901);
      expect(manifest.find((entry) => entry.path === names[7])).toMatchObject({
        kind: "file",
        size: names[7]!.length,
        sha256: sha(names[7]!),
      });
      expect(manifest.find((entry) => entry.path === "link")).toMatchObject({ kind: "link", sha256: sha("nested") });
      const refused = await sandboxManifest(lease, ["absent.txt"]).catch((error: unknown) => error);
      expect(isOutpostError(refused, "workspace")).toBe(true);
    } finally {
      await lease.release();
    }
  });

  it("refuses a file of another size or SHA-256, a missing or extra path, a link for a file, a link leaving the tree", async () => {
    const staging = join(scratch, "staging");
    mkdirSync(staging, { recursive: true });
    writeFileSync(join(staging, "a.txt"), "real\n");
    symlinkSync("a.txt", join(staging, "b"));
    const a: FileManifestEntry = { path: "a.txt", kind: "file", mode: 0o644, size: 5, sha256: sha("real\n") };
    const b: FileManifestEntry = { path: "b", kind: "link", mode: 0o777, size: 5, sha256: sha("a.txt") };
    const verified = await verifyStagedFiles(staging, [a, b], ["a.txt", "b"]);
    expect(verified.map((entry) => [entry.path, entry.kind])).toEqual([
      ["a.txt", "file"],
      ["b", "link"],
    ]);
    symlinkSync("../../outside", join(staging, "out"));
    const out: FileManifestEntry = { path: "out", kind: "link", mode: 0o777, size: 13, sha256: sha("../../outside") };
    for (const [manifest, wanted, problem] of [
      [[{ ...a, sha256: sha("fake\n") }], ["a.txt"], /SHA-256/],
      [[{ ...a, size: 6 }], ["a.txt"], /6/],
      [[a], ["a.txt", "b"], /does not list it/],
      [[a, b], ["a.txt"], /not asked for/],
      [[{ ...a, path: "b" }], ["b"], /no regular file/],
      [[out], ["out"], /leaving the transferred tree/],
    ] as const) {
      const error = await verifyStagedFiles(staging, manifest, wanted).catch((caught: unknown) => caught);
      expect(isOutpostError(error, "workspace")).toBe(true);
      expect((error as Error).message).toMatch(problem);
    }
  });
});
