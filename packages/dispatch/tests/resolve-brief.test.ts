import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveBrief } from "../src/brief/resolve-brief.js";

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("brief files", () => {
  it("refuses a file that is not valid UTF-8 instead of altering it, naming the first bad byte", async () => {
    const root = mkdtempSync(join(tmpdir(), "outpost-brief-"));
    roots.push(root);
    writeFileSync(join(root, "latin1.md"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, 0x21]));
    await expect(resolveBrief({ brief: { file: "latin1.md" }, root, expansionMs: 1_000 })).rejects.toMatchObject({
      code: "configuration",
      message: expect.stringContaining("not valid UTF-8 (first bad byte at offset 3)"),
    });
    writeFileSync(join(root, "utf8.md"), "café ✓\n");
    expect(await resolveBrief({ brief: { file: "utf8.md" }, root, expansionMs: 1_000 })).toBe("café ✓\n");
  });
});
