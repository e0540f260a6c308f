import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { isPlainEmptyDirectory } from "../src/empty-directory.js";

const base = await mkdtemp(join(tmpdir(), "outpost-empty-directory-"));
afterAll(() => rm(base, { recursive: true, force: true }));

describe("isPlainEmptyDirectory: only a real, empty directory may skip its upload", () => {
  it("is true for an empty directory and false for one holding anything, even a dot file or an empty folder", async () => {
    await mkdir(join(base, "empty"));
    expect(await isPlainEmptyDirectory(join(base, "empty"))).toBe(true);
    for (const [name, fill] of [
      ["dot", (path: string) => writeFile(join(path, ".hidden"), "")],
      ["folder", (path: string) => mkdir(join(path, "inner"))],
      ["link", (path: string) => symlink("/etc/passwd", join(path, "escape"))],
    ] as const) {
      await mkdir(join(base, name));
      await fill(join(base, name));
      expect(await isPlainEmptyDirectory(join(base, name))).toBe(false);
    }
  });

  it("is false for a link to an empty directory, a file and a missing path, so those still reach the upload's refusals", async () => {
    await mkdir(join(base, "target"));
    await symlink(join(base, "target"), join(base, "linked"));
    await writeFile(join(base, "file"), "");
    expect(await isPlainEmptyDirectory(join(base, "linked"))).toBe(false);
    expect(await isPlainEmptyDirectory(join(base, "file"))).toBe(false);
    expect(await isPlainEmptyDirectory(join(base, "missing"))).toBe(false);
  });
});
