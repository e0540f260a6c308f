import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutpostError } from "@outpost/core";
import { scanHostTree } from "../src/index.js";

let scratch: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plugin-utils-tree-"));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

const never = () => {};

async function refusal(promise: Promise<unknown>): Promise<OutpostError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OutpostError);
  expect((error as OutpostError).code).toBe("workspace");
  return error as OutpostError;
}

describe("scanHostTree", () => {
  it("lists parents before children with kinds, modes, sizes and kept relative links", async () => {
    const top = join(scratch, "top");
    await mkdir(join(top, "b", "c"), { recursive: true });
    await writeFile(join(top, "b", "c", "file.txt"), "12345", { mode: 0o640 });
    await symlink("c/file.txt", join(top, "b", "link"));
    const tree = await scanHostTree(top, never);
    expect(tree.kind).toBe("directory");
    expect(tree.entries.map((entry) => [entry.path, entry.kind])).toEqual([
      ["b", "directory"],
      ["b/c", "directory"],
      ["b/c/file.txt", "file"],
      ["b/link", "link"],
    ]);
    const file = tree.entries.find((entry) => entry.kind === "file")!;
    expect([file.size, file.mode, file.source]).toEqual([5, 0o640, join(top, "b", "c", "file.txt")]);
    expect(tree.entries.find((entry) => entry.kind === "link")!.target).toBe("c/file.txt");
  });

  it("lists a file source as one entry with the empty path", async () => {
    await writeFile(join(scratch, "one"), "x");
    const tree = await scanHostTree(join(scratch, "one"), never);
    expect(tree).toMatchObject({ kind: "file", entries: [{ path: "", kind: "file", size: 1 }] });
  });

  it("refuses a symlinked source, to a file or to a directory, without following it", async () => {
    await mkdir(join(scratch, "real"));
    await writeFile(join(scratch, "real", "f"), "x");
    await symlink("real", join(scratch, "to-directory"));
    await symlink("real/f", join(scratch, "to-file"));
    for (const source of ["to-directory", "to-file"]) {
      const error = await refusal(scanHostTree(join(scratch, source), never));
      expect(error.message).toContain("symbolic link");
    }
  });

  it("refuses a missing source and names it", async () => {
    expect((await refusal(scanHostTree(join(scratch, "missing"), never))).message).toContain("does not exist");
  });

  it.each([
    ["absolute", "/etc/passwd"],
    ["climbing out", "../../outside"],
    ["climbing out from a subdirectory", "../../../x"],
  ])("refuses a link inside the tree whose target is %s", async (_, target) => {
    const top = join(scratch, "top");
    await mkdir(join(top, "sub"), { recursive: true });
    await symlink(target, join(top, "sub", "bad"));
    expect((await refusal(scanHostTree(top, never))).details).toMatchObject({ path: "sub/bad", target });
  });

  it("refuses special files: a named pipe inside the tree and a pipe as the source", async () => {
    const top = join(scratch, "top");
    await mkdir(top);
    execFileSync("mkfifo", [join(top, "pipe")]);
    expect((await refusal(scanHostTree(top, never))).message).toContain("special file");
    await refusal(scanHostTree(join(top, "pipe"), never));
  });

  it("asks `check` once per directory, so an abort stops the scan", async () => {
    const top = join(scratch, "top");
    await mkdir(join(top, "a", "b"), { recursive: true });
    let calls = 0;
    await scanHostTree(top, () => void calls++);
    expect(calls).toBe(3);
    const stop = new Error("aborted");
    await expect(
      scanHostTree(top, () => {
        throw stop;
      }),
    ).rejects.toBe(stop);
  });
});
