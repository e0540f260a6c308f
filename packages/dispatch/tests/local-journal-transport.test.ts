import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localJournalTransport } from "../src/journal/local-transport.js";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function scratchRoot(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), "outpost-journal-folders-"));
  roots.push(root);
  return root;
}

describe("local journal storage: folders made once, made again when they vanish", () => {
  it("keeps writing after its storage folder was removed between two writes", async () => {
    const root = await scratchRoot();
    const transport = localJournalTransport(root);
    await transport.write("journals/one/segment-1", new TextEncoder().encode("first"), { ifRevision: null });
    await rm(join(root, ".outpost"), { recursive: true, force: true });
    const entry = await transport.write("journals/one/segment-2", new TextEncoder().encode("second"), { ifRevision: null });
    expect(entry.size).toBe(6);
    expect(new TextDecoder().decode((await transport.read("journals/one/segment-2"))!.bytes)).toBe("second");
    expect(await transport.read("journals/one/segment-1")).toBeUndefined();
    // `.outpost` is made again with its ignore file, so the journal never shows up in `git status`.
    expect(await readFile(join(root, ".outpost", ".gitignore"), "utf8")).toBe("*\n");
  });

  it("still refuses a second create of the same key after the folder was made again", async () => {
    const root = await scratchRoot();
    const transport = localJournalTransport(root);
    await transport.write("a/b", new TextEncoder().encode("1"), { ifRevision: null });
    await rm(join(root, ".outpost", "storage"), { recursive: true, force: true });
    await transport.write("a/b", new TextEncoder().encode("2"), { ifRevision: null });
    await expect(transport.write("a/b", new TextEncoder().encode("3"), { ifRevision: null })).rejects.toMatchObject({ code: "conflict" });
    expect(existsSync(join(root, ".outpost", "storage"))).toBe(true);
  });
});
