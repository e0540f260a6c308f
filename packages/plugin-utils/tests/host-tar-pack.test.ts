import { createHash } from "node:crypto";
import { chmod, link, mkdir, mkdtemp, rm, symlink, unlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { extract, type Pack } from "tar-stream";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { OutpostError } from "@outpost/core";
import { hostTarCanPack, packHostEntries, packsWithHostTar, packWithHostTar, scanHostTree } from "../src/index.js";

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plugin-utils-host-tar-"));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

let canPack = false;
beforeAll(async () => {
  canPack = await hostTarCanPack();
});

interface Listed {
  readonly name: string;
  readonly type: string;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
  readonly mtime: number;
  readonly linkname: string | null;
  readonly sha256: string;
}

/** Every entry of an archive as tar-stream reads it (directory names without their trailing "/"). */
async function listArchive(archive: Readable | Pack): Promise<Listed[]> {
  const reader = extract();
  const listed: Listed[] = [];
  reader.on("entry", (header, body, next) => {
    const hash = createHash("sha256");
    body.on("data", (chunk) => void hash.update(chunk as Buffer));
    body.on("end", () => {
      listed.push({
        name: header.name.replace(/\/$/, ""),
        type: header.type ?? "file",
        mode: header.mode ?? 0,
        uid: header.uid ?? 0,
        gid: header.gid ?? 0,
        mtime: Math.floor((header.mtime?.getTime() ?? 0) / 1000),
        linkname: header.type === "symlink" ? (header.linkname ?? null) : null,
        sha256: hash.digest("hex"),
      });
      next();
    });
  });
  const done = new Promise<void>((resolve, reject) => {
    reader.on("finish", resolve);
    reader.on("error", reject);
  });
  await Promise.all([pipeline(archive, reader), done]);
  return listed;
}

/** A tree with what tends to differ between tar writers: long, odd and unicode names, modes, links, hard links. */
async function oddTree(): Promise<string> {
  const top = join(scratch, "top");
  const deep = join(top, "a".repeat(60), "b".repeat(60));
  await mkdir(deep, { recursive: true });
  await writeFile(join(deep, `${"c".repeat(90)}.txt`), "deep\n");
  await writeFile(join(top, "-starts-with-dash"), "dash\n");
  await writeFile(join(top, "back\\nslash"), "backslash\n");
  await writeFile(join(top, "été ☃.md"), "unicode\n");
  await writeFile(join(top, "empty"), "");
  await writeFile(join(top, "tool"), "#!/bin/sh\n", { mode: 0o755 });
  await writeFile(join(top, "set-id"), "x", { mode: 0o755 });
  await chmod(join(top, "set-id"), 0o6755);
  await mkdir(join(top, "sticky"));
  await chmod(join(top, "sticky"), 0o1777);
  await writeFile(join(top, "private"), "secret", { mode: 0o600 });
  await link(join(top, "tool"), join(top, "hard-link-of-tool"));
  await symlink("tool", join(top, "relative-link"));
  await writeFile(join(top, "big"), Buffer.alloc(300 * 1024, 7));
  await utimes(join(top, "private"), new Date("2020-01-02T03:04:05Z"), new Date("2020-01-02T03:04:05Z"));
  return top;
}

describe.runIf(process.platform === "linux")("packWithHostTar", () => {
  it("writes the archive packHostEntries writes: names, kinds, permission bits only, owner, times, links, contents", async () => {
    expect(canPack).toBe(true);
    const top = await oddTree();
    const { entries } = await scanHostTree(top, () => undefined);
    const owner = { uid: 1234, gid: 55 };
    const byHostTar = packWithHostTar(top, entries, owner);
    const hostTarListing = await listArchive(byHostTar.archive);
    await byHostTar.finished;
    const byTarStream = packHostEntries(entries, { name: (entry) => entry.path, ...owner });
    const tarStreamListing = await listArchive(byTarStream.archive);
    await byTarStream.finished;
    expect(hostTarListing).toEqual(tarStreamListing);
    expect(hostTarListing.map((entry) => entry.name)).toEqual(entries.map((entry) => entry.path));
    const mode = (name: string) => hostTarListing.find((entry) => entry.name === name)!.mode;
    expect([mode("set-id"), mode("sticky"), mode("private")]).toEqual([0o755, 0o777, 0o600]);
    expect(hostTarListing.find((entry) => entry.name === "hard-link-of-tool")).toMatchObject({ type: "file" });
    expect(new Set(hostTarListing.map((entry) => `${entry.uid}:${entry.gid}`))).toEqual(new Set(["1234:55"]));
  });

  it("packs only the listed entries: what appears after the scan stays behind", async () => {
    const top = await oddTree();
    const { entries } = await scanHostTree(top, () => undefined);
    await writeFile(join(top, "a".repeat(60), "late"), "not scanned");
    const packed = packWithHostTar(top, entries);
    const names = (await listArchive(packed.archive)).map((entry) => entry.name);
    await packed.finished;
    expect(names).toEqual(entries.map((entry) => entry.path));
  });

  it("never packs what a file swapped for a link after the scan points to, and fails when a file vanished", async () => {
    const outside = join(scratch, "outside-secret");
    await writeFile(outside, "host secret");
    const top = join(scratch, "top");
    await mkdir(top);
    await writeFile(join(top, "swapped"), "inside");
    await writeFile(join(top, "vanishing"), "soon gone");
    const { entries } = await scanHostTree(top, () => undefined);
    await unlink(join(top, "swapped"));
    await symlink(outside, join(top, "swapped"));
    await unlink(join(top, "vanishing"));
    const packed = packWithHostTar(top, entries);
    const listing = await listArchive(packed.archive);
    const error = await packed.finished.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(listing).toEqual([expect.objectContaining({ name: "swapped", type: "symlink", linkname: outside })]);
    expect(listing.map((entry) => entry.sha256)).not.toContain(createHash("sha256").update("host secret").digest("hex"));
    expect(error).toBeInstanceOf(OutpostError);
    expect((error as OutpostError).code).toBe("workspace");
    expect((error as OutpostError).message).toMatch(/vanishing.*retry/s);
  });

  it("ends tar when the signal aborts, and the archive fails", async () => {
    const top = await oddTree();
    const { entries } = await scanHostTree(top, () => undefined);
    const controller = new AbortController();
    controller.abort();
    const packed = packWithHostTar(top, entries, { signal: controller.signal });
    packed.archive.resume();
    await expect(packed.finished).rejects.toMatchObject({ code: "workspace" });
  });

  it("ignores TAR_OPTIONS from the environment", async () => {
    const top = await oddTree();
    const { entries } = await scanHostTree(top, () => undefined);
    const previous = process.env.TAR_OPTIONS;
    process.env.TAR_OPTIONS = "--transform=s/^/planted-/ --dereference";
    try {
      const packed = packWithHostTar(top, entries);
      const listing = await listArchive(packed.archive);
      await packed.finished;
      expect(listing.map((entry) => entry.name)).toEqual(entries.map((entry) => entry.path));
      expect(listing.find((entry) => entry.name === "relative-link")).toMatchObject({ type: "symlink" });
    } finally {
      if (previous === undefined) delete process.env.TAR_OPTIONS;
      else process.env.TAR_OPTIONS = previous;
    }
  });
});

describe("packsWithHostTar", () => {
  it("takes GNU tar 1.29 or later, and nothing else", () => {
    expect(packsWithHostTar("tar (GNU tar) 1.34\nCopyright (C) 2021 Free Software Foundation, Inc.\n")).toBe(true);
    expect(packsWithHostTar("tar (GNU tar) 1.29\n")).toBe(true);
    expect(packsWithHostTar("tar (GNU tar) 2.0\n")).toBe(true);
    expect(packsWithHostTar("tar (GNU tar) 1.26\n")).toBe(false);
    expect(packsWithHostTar("bsdtar 3.5.3 - libarchive 3.5.3 zlib/1.2.11 liblzma/5.0.5 bz2lib/1.0.8\n")).toBe(false);
    expect(packsWithHostTar("tar (busybox) 1.36.1\n")).toBe(false);
    expect(packsWithHostTar("")).toBe(false);
  });
});
