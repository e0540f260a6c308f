import { createHash } from "node:crypto";
import { lstat, mkdtemp, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pack } from "tar-stream";
import { isOutpostError } from "@outpost/core";
import { unpackBufferToStaging, unpackToStaging, type StagedEntry } from "../src/tar-unpack.js";

type Header = Parameters<ReturnType<typeof pack>["entry"]>[0];

/** A real tar stream (tar-stream) with whatever hostile entries a compromised sandbox could send. */
function archiveStream(entries: readonly [Header, string?][]): Readable {
  const tar = pack();
  for (const [header, body] of entries) tar.entry(header, body ?? "");
  tar.finalize();
  return tar as unknown as Readable;
}

async function archive(entries: readonly [Header, string?][]): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of archiveStream(entries)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type Unpack = (archive: Buffer, staging: string, check: () => void) => Promise<StagedEntry[]>;

/** Both readers stage by the same rules: the streaming one and the one for an archive in memory. */
const readers: [string, Unpack][] = [
  ["unpackToStaging", (bytes, staging, check) => unpackToStaging(Readable.from([bytes]), staging, check)],
  ["unpackBufferToStaging", async (bytes, staging, check) => unpackBufferToStaging(bytes, staging, check)],
];

describe.each(readers)("%s refuses hostile archives from the sandbox", (_name, unpack) => {
  let staging: string;
  beforeEach(async () => {
    staging = await mkdtemp(join(tmpdir(), "outpost-unpack-"));
  });
  afterEach(async () => {
    await rm(staging, { recursive: true, force: true });
  });

  const hostile: [string, [Header, string?][]][] = [
    ["a name that climbs out with ..", [[{ name: "../escape.txt", type: "file" }, "x"]]],
    ["a name hidden behind a directory", [[{ name: "a/../../escape.txt", type: "file" }, "x"]]],
    ["an absolute name", [[{ name: "/etc/escape", type: "file" }, "x"]]],
    ["an absolute link", [[{ name: "link", type: "symlink", linkname: "/etc/passwd" }]]],
    ["a link leaving the tree", [[{ name: "dir/link", type: "symlink", linkname: "../../outside" }]]],
    ["a hard link to a host file", [[{ name: "hard", type: "link", linkname: "/etc/passwd" }]]],
    ["a device", [[{ name: "device", type: "character-device", devmajor: 1, devminor: 3 }]]],
    ["a fifo", [[{ name: "fifo", type: "fifo" }]]],
    // A link that stays inside may be staged, but nothing is ever written through it (a chain of such links can leave).
    [
      "a file written through a link of the archive",
      [[{ name: "up", type: "symlink", linkname: "." }], [{ name: "up/escape.txt", type: "file" }, "x"]],
    ],
    [
      "a directory made through a link of the archive",
      [[{ name: "d/hop", type: "symlink", linkname: ".." }], [{ name: "d/hop/sub/", type: "directory" }]],
    ],
    [
      "a file below a file of the archive",
      [
        [{ name: "plain", type: "file" }, "x"],
        [{ name: "plain/escape.txt", type: "file" }, "x"],
      ],
    ],
    [
      "a path that appears twice (a link replacing a file)",
      [[{ name: "twice", type: "file" }, "x"], [{ name: "twice", type: "symlink", linkname: "other" }]],
    ],
    ["a file replacing a directory of the archive", [[{ name: "dir/", type: "directory" }], [{ name: "dir", type: "file" }, "x"]]],
  ];
  for (const [title, entries] of hostile) {
    it(`refuses ${title} with code workspace`, async () => {
      const failure = await unpack(await archive(entries), staging, () => undefined).catch((error: unknown) => error);
      expect(isOutpostError(failure, "workspace"), String(failure)).toBe(true);
      expect(await readdir(join(staging, ".."))).not.toContain("escape.txt");
    });
  }

  it("keeps modes, relative links, hard links and empty directories, with SHA-256 of each file", async () => {
    const entries = await unpack(
      await archive([
        [{ name: "./", type: "directory" }],
        [{ name: "./bin/", type: "directory", mode: 0o755 }],
        [{ name: "./bin/tool", type: "file", mode: 0o751 }, "#!/bin/sh\n"],
        [{ name: "./bin/same", type: "link", linkname: "./bin/tool" }],
        [{ name: "./empty/", type: "directory", mode: 0o700 }],
        [{ name: "./up", type: "symlink", linkname: "bin/tool" }],
      ]),
      staging,
      () => undefined,
    );
    const byPath = Object.fromEntries(entries.map((entry) => [entry.path, entry]));
    expect(Object.keys(byPath).sort()).toEqual(["bin", "bin/same", "bin/tool", "empty", "up"]);
    expect(byPath["bin/tool"]).toMatchObject({
      kind: "file",
      mode: 0o751,
      sha256: createHash("sha256").update("#!/bin/sh\n").digest("hex"),
    });
    expect(byPath["bin/same"]?.sha256).toBe(byPath["bin/tool"]?.sha256);
    expect(byPath.up).toMatchObject({ kind: "link", target: "bin/tool" });
    expect(byPath.empty).toMatchObject({ kind: "directory", mode: 0o700 });
  });

  it("refuses an entry over a link an earlier archive staged, without writing through it", async () => {
    const outside = await mkdtemp(join(tmpdir(), "outpost-unpack-outside-"));
    try {
      await unpack(await archive([[{ name: "away", type: "symlink", linkname: "." }]]), staging, () => undefined);
      await symlink(outside, join(staging, "planted"));
      for (const name of ["away", "planted/escape.txt", "planted"]) {
        const failure = await unpack(await archive([[{ name, type: "file" }, "x"]]), staging, () => undefined).catch(
          (error: unknown) => error,
        );
        expect(isOutpostError(failure, "workspace"), `${name}: ${String(failure)}`).toBe(true);
      }
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("gives each file its mode and time in staging, so committing is a rename", async () => {
    const mtime = new Date("2020-01-02T03:04:05Z");
    await unpack(await archive([[{ name: "tool", type: "file", mode: 0o750, mtime }, "run\n"]]), staging, () => undefined);
    const info = await lstat(join(staging, "tool"));
    expect(info.mode & 0o7777).toBe(0o750);
    expect(info.mtime.getTime()).toBe(mtime.getTime());
  });

  it("drops setuid, setgid and sticky bits from every file, hard link and directory the sandbox sends", async () => {
    const entries = await unpack(
      await archive([
        [{ name: "shared/", type: "directory", mode: 0o3777 }],
        [{ name: "shared/root-shell", type: "file", mode: 0o4755 }, "#!/bin/sh\n"],
        [{ name: "group-tool", type: "file", mode: 0o2711 }, "x"],
        [{ name: "again", type: "link", linkname: "shared/root-shell", mode: 0o6755 }],
      ]),
      staging,
      () => undefined,
    );
    const modes = Object.fromEntries(entries.map((entry) => [entry.path, entry.mode]));
    expect(modes).toEqual({ shared: 0o777, "shared/root-shell": 0o755, "group-tool": 0o711, again: 0o755 });
    for (const path of ["shared/root-shell", "group-tool", "again"]) expect((await lstat(join(staging, path))).mode & 0o7000, path).toBe(0);
  });

  it("stops when the guard fires, without reading the rest", async () => {
    let calls = 0;
    const stop = () => {
      if (++calls > 1) throw new Error("stopped");
    };
    const bytes = await archive([
      [{ name: "one", type: "file" }, "1"],
      [{ name: "two", type: "file" }, "2"],
    ]);
    expect(String(await unpack(bytes, staging, stop).catch((error: unknown) => error))).toMatch(/stopped/);
    expect(await readdir(staging)).toEqual(["one"]);
  });
});
