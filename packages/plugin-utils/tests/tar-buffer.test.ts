import { execFileSync } from "node:child_process";
import { chmodSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { readTarBuffer } from "../src/tar-buffer.js";
import { unpackBufferToStaging, unpackToStaging } from "../src/tar-unpack.js";

const root = mkdtempSync(join(tmpdir(), "outpost-tar-buffer-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

// A tree with what real tars encode in their extensions: a name over 100 bytes (ustar prefix, GNU `L`, pax
// path), a long link target (GNU `K`, pax linkpath), unicode, a hard link, modes and an empty directory.
const tree = join(root, "tree");
const deep = `${"d".repeat(60)}/${"e".repeat(60)}`;
mkdirSync(join(tree, deep), { recursive: true });
mkdirSync(join(tree, "empty"));
writeFileSync(join(tree, deep, `${"f".repeat(90)}.txt`), "deep\n");
writeFileSync(join(tree, "tool"), "#!/bin/sh\n");
chmodSync(join(tree, "tool"), 0o751);
writeFileSync(join(tree, "ünïcode name.txt"), "ü\n");
writeFileSync(join(tree, "big.bin"), Buffer.alloc(70_000, 7));
linkSync(join(tree, "tool"), join(tree, "same"));
symlinkSync(`${deep}/${"f".repeat(90)}.txt`, join(tree, "far"));

function tarOf(tool: string[]): Buffer {
  return execFileSync(tool[0]!, [...tool.slice(1), "-C", tree, "-cf", "-", "."], { maxBuffer: 64 * 1024 * 1024 });
}

const tars: [string, string[]][] = [
  ["GNU tar (gnu format)", ["tar"]],
  ["GNU tar (pax format)", ["tar", "--format=posix"]],
  ["GNU tar (ustar format)", ["tar", "--format=ustar"]],
  ["busybox tar", ["busybox", "tar"]],
];

describe("readTarBuffer reads what real tars write as the streaming reader does", () => {
  for (const [name, tool] of tars) {
    it(name, async () => {
      let bytes: Buffer;
      try {
        bytes = tarOf(tool);
      } catch (error) {
        // ustar cannot hold the long link target: that tar refuses the tree, which is not this reader's concern.
        if (tool.includes("--format=ustar")) return expect(String(error)).toMatch(/too long|ustar/i);
        throw error;
      }
      const streamed = join(root, `${name}-stream`);
      const buffered = join(root, `${name}-buffer`);
      mkdirSync(streamed);
      mkdirSync(buffered);
      const fromStream = await unpackToStaging(Readable.from([bytes]), streamed, () => undefined);
      const fromBuffer = unpackBufferToStaging(bytes, buffered, () => undefined);
      // pax times have a fraction, which only this reader keeps: compared to the second.
      const sorted = (entries: typeof fromStream) =>
        [...entries]
          .map((entry) => ({ ...entry, mtime: Math.floor((entry.mtime?.getTime() ?? 0) / 1000) }))
          .sort((left, right) => left.path.localeCompare(right.path));
      expect(sorted(fromBuffer)).toEqual(sorted(fromStream));
      const paths = fromBuffer.map((entry) => entry.path);
      expect(paths).toEqual(expect.arrayContaining([`${deep}/${"f".repeat(90)}.txt`, "ünïcode name.txt", "same", "far", "empty"]));
      expect(readFileSync(join(buffered, "big.bin"))).toEqual(Buffer.alloc(70_000, 7));
      expect(fromBuffer.find((entry) => entry.path === "far")?.target).toBe(`${deep}/${"f".repeat(90)}.txt`);
    });
  }
});

describe("readTarBuffer refuses a corrupt archive with code workspace", () => {
  const good = tarOf(["tar"]);
  const corrupt: [string, Buffer][] = [
    ["a header whose checksum does not match", Buffer.concat([good.subarray(0, 100), Buffer.from("X"), good.subarray(101)])],
    ["an archive cut inside an entry's bytes", good.subarray(0, good.indexOf(Buffer.alloc(70_000, 7).subarray(0, 64)) + 1000)],
    ["an archive cut inside a header", good.subarray(0, 700)],
  ];
  for (const [title, bytes] of corrupt) {
    it(title, () => {
      const failure = (() => {
        try {
          return [...readTarBuffer(bytes)];
        } catch (error) {
          return error;
        }
      })();
      expect(isOutpostError(failure, "workspace"), String(failure)).toBe(true);
    });
  }

  it("a size that is not an octal number (checksum made right)", () => {
    const header = Buffer.from(good.subarray(0, 512));
    header.write("0000000009z\0", 124, "latin1");
    header.fill(0x20, 148, 156);
    const sum = header.reduce((total, byte) => total + byte, 0);
    header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, "latin1");
    const failure = (() => {
      try {
        return [...readTarBuffer(Buffer.concat([header, Buffer.alloc(1024)]))];
      } catch (error) {
        return error;
      }
    })();
    expect(String(failure)).toMatch(/not an octal number/);
  });
});
