import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitStagedDirectory, commitStagingAsDirectory, createStaging, unpackBufferToStaging } from "../src/index.js";

let scratch: string;
let made: Promise<Buffer> | undefined;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plugin-utils-commit-"));
  made = undefined;
});
afterEach(async () => {
  execFileSync("chmod", ["-R", "u+w", scratch]);
  await rm(scratch, { recursive: true, force: true });
});

/** A sandbox-like tree, as a tar: nested directories with their own modes and times (one read-only), files, a link. */
function archive(): Promise<Buffer> {
  made ??= makeArchive();
  return made;
}

async function makeArchive(): Promise<Buffer> {
  const tree = join(scratch, "tree");
  await mkdir(join(tree, "a", "b"), { recursive: true });
  await mkdir(join(tree, "read-only"));
  await writeFile(join(tree, "a", "b", "tool"), "#!/bin/sh\n", { mode: 0o751 });
  await writeFile(join(tree, "read-only", "inside"), "kept");
  await symlink("b/tool", join(tree, "a", "link"));
  await chmod(join(tree, "a"), 0o750);
  await utimes(join(tree, "a", "b"), new Date("2021-05-06T07:08:09Z"), new Date("2021-05-06T07:08:09Z"));
  await chmod(join(tree, "read-only"), 0o555);
  return execFileSync("tar", ["-c", "-f", "-", "-C", tree, "."]);
}

/** Every node under `top`: kind, permission bits, link target or contents, and directory times. */
function describeTree(top: string): Record<string, string> {
  const nodes: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const name of readdirSync(join(top, relative)).sort()) {
      const path = relative === "" ? name : `${relative}/${name}`;
      const info = lstatSync(join(top, path));
      const mode = (info.mode & 0o777).toString(8);
      if (info.isSymbolicLink()) nodes[path] = `link -> ${readlinkSync(join(top, path))}`;
      else if (info.isDirectory()) {
        nodes[path] = `directory ${mode} ${info.mtime.toISOString()}`;
        walk(path);
      } else nodes[path] = `file ${mode} ${readFileSync(join(top, path), "utf8")}`;
    }
  };
  walk("");
  return nodes;
}

async function staged(destination: string) {
  const staging = await createStaging(destination);
  const entries = unpackBufferToStaging(await archive(), staging, () => undefined);
  return { staging, entries };
}

describe("commitStagingAsDirectory", () => {
  it("makes a new destination from staging in one move: the same tree as moving entry by entry, staging gone", async () => {
    const whole = join(scratch, "out", "whole");
    const { staging, entries } = await staged(whole);
    await commitStagingAsDirectory(staging, entries, whole);
    expect(existsSync(staging)).toBe(false);

    const oneByOne = join(scratch, "out", "one-by-one");
    const other = await staged(oneByOne);
    await commitStagedDirectory(other.staging, other.entries, oneByOne);
    const tree = describeTree(whole);
    expect(tree).toEqual(describeTree(oneByOne));
    expect(tree).toMatchObject({
      a: expect.stringMatching(/^directory 750 /),
      "a/b": "directory 755 2021-05-06T07:08:09.000Z",
      "a/b/tool": "file 751 #!/bin/sh\n",
      "a/link": "link -> b/tool",
      "read-only": expect.stringMatching(/^directory 555 /),
      "read-only/inside": "file 644 kept",
    });
    expect((lstatSync(whole).mode & 0o777).toString(8)).toBe((lstatSync(oneByOne).mode & 0o777).toString(8));
  });

  it("moves entry by entry into a destination that exists, keeping what was there", async () => {
    const destination = join(scratch, "existing");
    await mkdir(destination);
    await writeFile(join(destination, "before.txt"), "before");
    const { staging, entries } = await staged(destination);
    await commitStagingAsDirectory(staging, entries, destination);
    expect((await readdir(destination)).sort()).toEqual(["a", "before.txt", "read-only"]);
    expect(readFileSync(join(destination, "a", "b", "tool"), "utf8")).toBe("#!/bin/sh\n");
  });
});
