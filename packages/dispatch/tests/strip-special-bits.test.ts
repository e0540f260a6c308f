import { chmod, mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { stripSpecialBits } from "../src/workspace/strip-special-bits.js";

const made: string[] = [];
afterEach(async () => {
  await Promise.all(made.splice(0).map((path) => rm(path, { recursive: true, force: true })));
});

describe("stripSpecialBits", () => {
  it("strips a planted setuid bit while another writer creates and removes temporary files beside it", async () => {
    const root = await mkdtemp(join(tmpdir(), "outpost-strip-bits-"));
    made.push(root);
    const churn = join(root, ".outpost", "storage");
    await mkdir(churn, { recursive: true });
    const planted = join(root, "tool");
    await writeFile(planted, "#!/bin/sh\n");
    let writing = true;
    // A journal writes and renames temporary files while the sweep walks: find sees names that then vanish.
    const writer = (async () => {
      for (let index = 0; writing; index += 1) {
        const names = Array.from({ length: 50 }, (_, item) => join(churn, `f${index}-${item}.tmp`));
        await Promise.all(names.map((name) => writeFile(name, "x")));
        await Promise.all(names.map((name) => rm(name, { force: true })));
      }
    })();
    try {
      // With nothing special to list, find's only output is its complaint about a vanished name.
      for (let round = 0; round < 30; round += 1) expect(await stripSpecialBits(root)).toEqual([]);
      await chmod(planted, 0o4755);
      expect(await stripSpecialBits(root)).toEqual(["tool"]);
      expect((await stat(planted)).mode & 0o7777).toBe(0o755);
    } finally {
      writing = false;
      await writer;
    }
  });
});
