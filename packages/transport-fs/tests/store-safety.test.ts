import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError, type Transport } from "@outpost/core";
import { fsTransport } from "../src/index.js";

const bytes = (text: string) => new TextEncoder().encode(text);

async function codeOf(action: Promise<unknown>): Promise<string> {
  try {
    await action;
    return "resolved";
  } catch (error) {
    return isOutpostError(error) ? error.code : `not an OutpostError: ${String(error)}`;
  }
}

async function collectKeys(transport: Transport, prefix?: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const entry of transport.list(prefix)) keys.push(entry.key);
  return keys.sort();
}

describe("fsTransport store safety", () => {
  let base = "";
  let store = "";
  let outside = "";
  let transport: Transport;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), "outpost-fs-safety-"));
    store = join(base, "store");
    outside = join(base, "outside");
    await mkdir(outside);
    transport = fsTransport({ directory: store });
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it("stores each object as one file with a header, under the key's directories", async () => {
    const entry = await transport.write("a/b/c.json", bytes("{}"), { ifRevision: null });
    const raw = await readFile(join(store, "a", "b", "c.json~outpost"));
    expect(raw.subarray(0, 9).toString()).toBe("OUTPOST1 ");
    expect(raw.toString()).toContain(entry.revision);
    expect(raw.subarray(raw.length - 2).toString()).toBe("{}");
    expect(await readdir(join(store, "a", "b"))).toEqual(["c.json~outpost"]);
  });

  it("refuses a symlinked directory inside the store for write, read, remove and list, and writes nothing outside", async () => {
    await transport.write("real/x.txt", bytes("x"), { ifRevision: null });
    await mkdir(join(store, "linked"), { recursive: true }).then(() => rm(join(store, "linked"), { recursive: true }));
    await symlink(outside, join(store, "linked"));
    expect(await codeOf(transport.write("linked/evil.txt", bytes("evil"), { ifRevision: null }))).toBe("transport");
    expect(await codeOf(transport.read("linked/evil.txt"))).toBe("transport");
    expect(await codeOf(transport.remove("linked/evil.txt", { ifRevision: "0".repeat(32) }))).toBe("transport");
    expect(await codeOf(collectKeys(transport))).toBe("transport");
    expect(await readdir(outside)).toEqual([]);
  });

  it("refuses an object file that is a symlink, without following it", async () => {
    await writeFile(join(outside, "secret~outpost"), "not yours");
    await mkdir(store, { recursive: true });
    await symlink(join(outside, "secret~outpost"), join(store, "secret~outpost"));
    const error = await transport.read("secret").catch((caught: unknown) => caught);
    expect(isOutpostError(error, "transport")).toBe(true);
    expect((error as Error).message).toMatch(/symlink/);
    expect(await codeOf(transport.write("secret", bytes("x"), { ifRevision: null }))).toBe("transport");
    expect(await readFile(join(outside, "secret~outpost"), "utf8")).toBe("not yours");
  });

  it("refuses keys that use the store's reserved suffix", async () => {
    for (const key of ["a~outpost", "dir~outpost/x", "x~outpost-lock", "y~outpost-tmp-1"]) {
      expect(await codeOf(transport.write(key, bytes("x"), { ifRevision: null })), key).toBe("configuration");
      expect(await codeOf(transport.read(key)), key).toBe("configuration");
    }
  });

  it("a damaged header, flipped payload bytes or a truncated file are clear transport errors", async () => {
    await transport.write("h.txt", bytes("hello world"), { ifRevision: null });
    await transport.write("p.txt", bytes("hello world"), { ifRevision: null });
    await transport.write("t.txt", bytes("hello world"), { ifRevision: null });
    const headerFile = join(store, "h.txt~outpost");
    await writeFile(headerFile, (await readFile(headerFile)).toString().replace("OUTPOST1", "GARBAGE1"));
    const payloadFile = join(store, "p.txt~outpost");
    await writeFile(payloadFile, (await readFile(payloadFile)).toString().replace("hello world", "hellO world"));
    await truncate(join(store, "t.txt~outpost"), 20);
    for (const key of ["h.txt", "p.txt", "t.txt"]) {
      const error = await transport.read(key).catch((caught: unknown) => caught);
      expect(isOutpostError(error, "transport"), key).toBe(true);
      expect((error as Error).message, key).toMatch(/corrupt/);
    }
  });

  it("refuses an oversized object from its header alone, without reading the payload", async () => {
    await transport.write("huge.bin", bytes("small"), { ifRevision: null });
    // A sparse 8 GiB file: reading it whole would take far longer than this test's timeout.
    await truncate(join(store, "huge.bin~outpost"), 8 * 1024 ** 3);
    const error = await transport.read("huge.bin", { maxBytes: 1024 }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "limit")).toBe(true);
    expect((error as Error).message).toMatch(/over the 1024-byte limit/);
  }, 5_000);

  it("ignores temporary and lock files left by a crashed writer", async () => {
    await transport.write("dir/kept.txt", bytes("kept"), { ifRevision: null });
    await writeFile(join(store, "dir", "kept.txt~outpost-tmp-0123456789abcdef"), "half written");
    await writeFile(join(store, "dir", "other.txt~outpost-tmp-0123"), "half written");
    await writeFile(join(store, "dir", "stray-user-file.txt"), "not an object");
    expect(await collectKeys(transport)).toEqual(["dir/kept.txt"]);
    expect(await transport.read("dir/other.txt")).toBeUndefined();
    expect(await codeOf(transport.write("dir/other.txt", bytes("new"), { ifRevision: null }))).toBe("resolved");
  });

  it("readers racing rewrites always see one whole version, never a mix or a part", async () => {
    const versions = Array.from({ length: 4 }, (_, index) => new Uint8Array(128 * 1024).fill(index + 1));
    let entry = await transport.write("hot.bin", versions[0]!, { ifRevision: null });
    let writing = true;
    const writer = (async () => {
      for (let round = 1; round <= 40; round += 1)
        entry = await transport.write("hot.bin", versions[round % 4]!, { ifRevision: entry.revision });
      writing = false;
    })();
    let reads = 0;
    while (writing) {
      const stored = await transport.read("hot.bin");
      const first = stored!.bytes[0]!;
      expect(stored!.bytes.length).toBe(128 * 1024);
      expect(Buffer.from(stored!.bytes).equals(Buffer.alloc(128 * 1024, first))).toBe(true);
      reads += 1;
    }
    await writer;
    expect(reads).toBeGreaterThan(0);
  });

  it("an object and a directory of the same name coexist", async () => {
    await transport.write("node", bytes("leaf"), { ifRevision: null });
    await transport.write("node/child", bytes("child"), { ifRevision: null });
    expect(await collectKeys(transport, "node")).toEqual(["node", "node/child"]);
    expect(await collectKeys(transport, "node/")).toEqual(["node/child"]);
  });

  it("a store directory that does not exist yet lists nothing and reads undefined", async () => {
    const fresh = fsTransport({ directory: join(base, "not-yet") });
    expect(await collectKeys(fresh)).toEqual([]);
    expect(await fresh.read("x")).toBeUndefined();
    expect(await codeOf(fresh.remove("x", { ifRevision: "0".repeat(32) }))).toBe("conflict");
  });

  it("rejects a missing directory option with code configuration", () => {
    expect(() => fsTransport({ directory: "" })).toThrow(expect.objectContaining({ code: "configuration" }));
  });
});
