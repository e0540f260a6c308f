import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { createPathRewriter, relocateFile, rewriteJsonLine } from "../src/index.js";
import { RELOCATE_BLOCK_BYTES, relocateFile as relocateInBlocks } from "../src/relocation/relocate-file.js";

const pairs = [
  { from: "/work/repo", to: "/srv/new-place" },
  { from: "/root", to: "/home/agent" },
];
const reference = createPathRewriter(pairs);
/** What relocation must produce: each line through the string rewriter, the slow but obvious way. */
const expectedOf = (text: string) =>
  text
    .split("\n")
    .map((line) => rewriteJsonLine(line, reference))
    .join("\n");

// Paths at every kind of boundary, escaped spellings, and multi-byte UTF-8 (2, 3 and 4 bytes) right against them.
const LINES = [
  String.raw`{"cwd":"/work/repo","home":"/root/.cfg","not":"/work/repository /x/work/repo /work/repo.old"}`,
  String.raw`{"esc":"\/work\/repo\/src","u":"\u002fwork\u002frepo","e":"\u00e9"}`,
  String.raw`{"t":"é/work/repo —/work/repo /work/repo— /work/repoé 😀/work/repo/x😀 中文 /root 中文"}`,
  String.raw`{"ansi":"\u001b[31m plain /work/repo/a","after":"/work/repo\u001b[0m"}`,
  String.raw`{"raw":"dir:\n/work/repo/b","diff":"diff --git a/work/repo/x b/work/repo/x"}`,
  String.raw`{"escaped-backslash":"\\u002fwork/repo \\/work/repo"}`,
  `{"long":"${"ü".repeat(300)} /work/repo ${"x".repeat(700)} /root/.x"}`,
  "",
  String.raw`{"last":"/work/repo","unterminated":"/root`,
];

describe("relocateFile in blocks", () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), "outpost-blocks-"));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  const run = async (name: string, input: string | Buffer, blockBytes?: number, kind: "json" | "text" = "json") => {
    await writeFile(join(directory, `${name}.in`), input);
    await relocateInBlocks(join(directory, `${name}.in`), join(directory, `${name}.out`), pairs, kind, undefined, blockBytes);
    return readFile(join(directory, `${name}.out`));
  };

  it("finds every path, escaped or not, wherever a block ends (each block size from 1 to 400 bytes)", async () => {
    const input = LINES.join("\n");
    const expected = expectedOf(input);
    expect(expected).toContain(String.raw`"esc":"/srv/new-place/src"`);
    expect(expected).toContain("—/srv/new-place /srv/new-place— /work/repoé 😀/srv/new-place/x😀 中文 /home/agent 中文");
    for (let blockBytes = 1; blockBytes <= 400; blockBytes += 1) {
      const output = await run(`sweep-${blockBytes}`, input, blockBytes);
      expect(output.toString("utf8"), `block of ${blockBytes} bytes`).toBe(expected);
    }
  });

  it("finds paths that share their start (a workspace inside the home, siblings under one parent) at every block size", async () => {
    for (const nested of [
      [
        { from: "/root", to: "/home/a" },
        { from: "/root/repo", to: "/w" },
      ],
      [
        { from: "/tmp/outpost-home-x", to: "/h" },
        { from: "/tmp/outpost-bench-x/repo", to: "/srv/r" },
      ],
    ]) {
      const rewrite = createPathRewriter(nested);
      const input = [
        String.raw`{"a":"/root/repo/x /root/.codex /root/repository /rootx /root","b":"\/root\/repo\/y"}`,
        String.raw`{"c":"/tmp/outpost-home-x/.claude /tmp/outpost-bench-x/repo/src /tmp/outpost-bench-x/repo2 /tmp/outpost- /tmp/outpost-home-xy"}`,
        "—/root/repo é/root/repo /tmp/outpost-bench-x/repo—",
      ].join("\n");
      const expected = input
        .split("\n")
        .map((line) => rewriteJsonLine(line, rewrite))
        .join("\n");
      expect(expected).not.toBe(input);
      for (let blockBytes = 1; blockBytes <= 200; blockBytes += 1) {
        await writeFile(join(directory, "nested.in"), input);
        await rm(join(directory, "nested.out"), { force: true });
        await relocateInBlocks(join(directory, "nested.in"), join(directory, "nested.out"), nested, "json", undefined, blockBytes);
        expect(await readFile(join(directory, "nested.out"), "utf8"), `${nested[0]!.from}, block of ${blockBytes} bytes`).toBe(expected);
      }
    }
  });

  it("finds a path, an escaped path and a multi-byte character cut by the reads of the default block size", async () => {
    const B = RELOCATE_BLOCK_BYTES;
    const lines: string[] = [];
    let size = 0;
    const add = (line: string) => {
      lines.push(line);
      size += Buffer.byteLength(line) + 1;
    };
    /** Adds filler lines, then a line whose `token` starts at byte `offset`; returns where that line starts. */
    const place = (offset: number, key: string, token: string) => {
      while (offset - size > 2000) add(`{"f":"${"f".repeat(990)}"}`);
      const start = size;
      add(`{"pad":"${"p".repeat(offset - size - 14 - key.length)}","${key}":"${token}"}`);
      return start;
    };
    // The first read ends at B; each next read ends B bytes after the start of the line cut by the previous one.
    const first = place(B - 4, "cwd", "/work/repo/x");
    const second = place(first + B - 3, "esc", String.raw`\/work\/repo\/y`);
    place(second + B - 2, "t", "—/root/.x");
    for (const line of LINES) add(line);
    const input = lines.join("\n");
    const bytes = Buffer.from(input);
    expect(bytes.indexOf("/work/repo")).toBe(B - 4);
    expect(bytes.indexOf(String.raw`\/work\/repo`)).toBe(first + B - 3);
    expect(bytes.indexOf("—/root")).toBe(second + B - 2);
    const output = (await run("multi", input)).toString("utf8");
    expect(output).toBe(expectedOf(input));
    expect(output).toContain('"cwd":"/srv/new-place/x"');
    expect(output).toContain('"esc":"/srv/new-place/y"');
    expect(output).toContain('"t":"—/home/agent/.x"');
  });

  it("keeps a control-character escape as it was spelled, and decodes only lines where an escape could touch a path", async () => {
    const line = String.raw`{"t":"\u001B[1m /work/repo\u001b[0m","n":1.50}`;
    expect((await run("ansi", line)).toString("utf8")).toBe(String.raw`{"t":"\u001B[1m /srv/new-place\u001b[0m","n":1.50}`);
    // A path right after a control escape sees a boundary once decoded: that line takes the string route.
    const before = String.raw`{"t":"\u001b/work/repo/x"}`;
    expect((await run("ansi-before", before)).toString("utf8")).toBe(String.raw`{"t":"\u001b/srv/new-place/x"}`);
  });

  it("never touches bytes that are not a path, even bytes that are not UTF-8", async () => {
    const input = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from("/work/repo/a "),
      Buffer.from([0xc3]),
      Buffer.from(" /root\n"),
      Buffer.from([0x80, 0x80]),
    ]);
    const output = await run("binary", input, 4);
    expect(
      output.equals(
        Buffer.concat([
          Buffer.from([0xff, 0xfe]),
          Buffer.from("/srv/new-place/a "),
          Buffer.from([0xc3]),
          Buffer.from(" /home/agent\n"),
          Buffer.from([0x80, 0x80]),
        ]),
      ),
    ).toBe(true);
  });

  it("leaves escapes alone in text files", async () => {
    const text = String.raw`see \/work\/repo and /work/repo/x`;
    expect((await run("text", text, 8, "text")).toString("utf8")).toBe(String.raw`see \/work\/repo and /srv/new-place/x`);
  });

  it("copies the file as it is when no pair changes anything, and refuses to overwrite a target", async () => {
    const input = "/work/repo é\n";
    await writeFile(join(directory, "same.in"), input);
    await relocateFile(
      join(directory, "same.in"),
      join(directory, "same.out"),
      [
        { from: "/work/repo", to: "/work/repo/" },
        { from: "/", to: "/x" },
      ],
      "json",
    );
    expect(await readFile(join(directory, "same.out"), "utf8")).toBe(input);
    await expect(relocateFile(join(directory, "same.in"), join(directory, "same.out"), pairs, "json")).rejects.toMatchObject({
      code: "EEXIST",
    });
    expect(await readFile(join(directory, "same.out"), "utf8")).toBe(input);
  });

  it("stops with code aborted when the signal has fired, writing nothing", async () => {
    await writeFile(join(directory, "abort.in"), "/work/repo\n");
    const controller = new AbortController();
    controller.abort(new Error("user pressed stop"));
    const failure = await relocateFile(join(directory, "abort.in"), join(directory, "abort.out"), pairs, "json", controller.signal).catch(
      (error: unknown) => error,
    );
    expect(isOutpostError(failure) && failure.code).toBe("aborted");
    await expect(readFile(join(directory, "abort.out"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("grows the block for a line longer than it and keeps memory at that line", async () => {
    const long = `{"a":"${"/work/repo/".repeat(50_000)}"}\n{"b":"/root"}`;
    const output = await run("long-line", long, 1024);
    expect(output.toString("utf8")).toBe(expectedOf(long));
  });
});
