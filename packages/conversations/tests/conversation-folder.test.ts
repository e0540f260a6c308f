import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { packDirectory, readOriginRecord, relocationTo, unpackConversationFolder, writeConversationFolder } from "../src/index.js";

let target: string;
beforeEach(async () => {
  target = await mkdtemp(join(tmpdir(), "outpost-conversation-folder-"));
});
afterEach(async () => {
  await rm(target, { recursive: true, force: true });
});

describe("writeConversationFolder / unpackConversationFolder", () => {
  it("replaces <target>/<id> whole once filled, and leaves the old folder and no scratch when filling fails", async () => {
    await writeConversationFolder(target, "abc", "capture", (work) => writeFile(join(work, "a.txt"), "first"));
    expect(await readFile(join(target, "abc", "a.txt"), "utf8")).toBe("first");
    const failed = writeConversationFolder(target, "abc", "capture", async (work) => {
      await writeFile(join(work, "b.txt"), "half");
      throw new Error("the download broke");
    });
    await expect(failed).rejects.toThrow("the download broke");
    expect(await readdir(target)).toEqual(["abc"]);
    expect(await readdir(join(target, "abc"))).toEqual(["a.txt"]);
  });

  it("unpacks a packed folder only after the check accepted it", async () => {
    const source = join(target, "source");
    await mkdir(source);
    await writeFile(join(source, "origin.json"), "{}");
    const bytes = await packDirectory(source);
    await expect(
      unpackConversationFolder(bytes, join(target, "store"), "abc", "demo conversation abc", () => Promise.reject(new Error("refused"))),
    ).rejects.toThrow("refused");
    expect(await readdir(join(target, "store"))).toEqual([]);
    await unpackConversationFolder(bytes, join(target, "store"), "abc", "demo conversation abc", async () => {});
    expect(await readdir(join(target, "store", "abc"))).toEqual(["origin.json"]);
  });
});

describe("readOriginRecord", () => {
  const expected = { outpost: "demo-export", format: "demo", id: "abc" };
  const good = { outpost: "demo-export", version: 1, id: "abc", workspace: "/w", home: "/h" };

  it("reads a record of the expected kind and id", async () => {
    await writeFile(join(target, "origin.json"), JSON.stringify(good));
    expect(await readOriginRecord(target, expected)).toMatchObject(good);
  });

  it.each([
    ["missing", undefined, /No captured demo conversation abc/],
    ["not JSON", "{", /not valid JSON/],
    ["another kind", { ...good, outpost: "transcript" }, /not an Outpost demo-export record/],
    ["another version", { ...good, version: 2 }, /not an Outpost demo-export record/],
    ["another id", { ...good, id: "xyz" }, /records demo conversation xyz/],
    ["no workspace", { ...good, workspace: 7 }, /workspace is missing/],
    ["no home", { ...good, home: undefined }, /home is missing/],
  ])("refuses a record that is %s as a session error", async (_name, content, message) => {
    if (content !== undefined)
      await writeFile(join(target, "origin.json"), typeof content === "string" ? content : JSON.stringify(content));
    await expect(readOriginRecord(target, expected)).rejects.toMatchObject({ code: "session", message: expect.stringMatching(message) });
  });

  it("checks the format only when asked", async () => {
    await writeFile(join(target, "origin.json"), JSON.stringify({ ...good, format: "other" }));
    await expect(readOriginRecord(target, expected)).resolves.toBeDefined();
    await expect(readOriginRecord(target, { ...expected, checkFormat: true })).rejects.toMatchObject({ code: "session" });
  });
});

describe("relocationTo", () => {
  it("goes from the recorded paths to the lease's, refusing a path that cannot be relocated", () => {
    expect(relocationTo({ workspace: "/a/repo/", home: "/a/home" }, { root: "/b/repo", home: "/b/home" })).toEqual({
      from: { workspace: "/a/repo", home: "/a/home" },
      to: { workspace: "/b/repo", home: "/b/home" },
    });
    expect(() => relocationTo({ workspace: "relative", home: "/a" }, { root: "/b", home: "/c" })).toThrow(
      expect.objectContaining({ code: "configuration" }),
    );
    expect(() => relocationTo({ workspace: "/a", home: "/a" }, { root: '/b"quoted', home: "/c" })).toThrow(
      expect.objectContaining({ code: "configuration" }),
    );
  });
});
