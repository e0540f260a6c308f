import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assertHostOwnedDirectories, ownershipProblem, readHostOwnedFile } from "@outpost/core";

// Real files, real owners: the tests run as root in CI, so chown can hand a file to another user or group.
const me = process.geteuid?.() ?? 0;
const myGroup = process.getegid?.() ?? 0;
const OTHER = 4242;
const asRoot = me === 0;

function scratch(): string {
  return mkdtempSync(join(tmpdir(), "outpost-owned-"));
}

function file(directory: string, name: string, mode = 0o644): string {
  const path = join(directory, name);
  writeFileSync(path, "content\n");
  chmodSync(path, mode);
  return path;
}

const options = { what: "a test record", code: "workspace" as const };

async function refusal(read: Promise<unknown>): Promise<{ code: string; message: string; details: Record<string, unknown> }> {
  return read.then(
    () => {
      throw new Error("it was read");
    },
    (error: unknown) => error as { code: string; message: string; details: Record<string, unknown> },
  );
}

describe("ownershipProblem and readHostOwnedFile", () => {
  it("reads a regular file of the user's own, also writable by the user's own group; absent is undefined", async () => {
    const directory = scratch();
    expect((await readHostOwnedFile(file(directory, "mine"), options))?.toString()).toBe("content\n");
    const shared = file(directory, "group", 0o664);
    chownSync(shared, me, myGroup);
    expect(ownershipProblem(lstatSync(shared))).toBeUndefined();
    expect(await readHostOwnedFile(join(directory, "absent"), options)).toBeUndefined();
    expect(await readHostOwnedFile(join(directory, "absent", "below"), options)).toBeUndefined();
  });

  it("refuses a symbolic link, even to a file of the user's own, naming it", async () => {
    const directory = scratch();
    const link = join(directory, "link");
    symlinkSync(file(directory, "target"), link);
    expect(ownershipProblem(lstatSync(link))).toBe("it is a symbolic link");
    const error = await refusal(readHostOwnedFile(link, options));
    expect(error.code).toBe("workspace");
    expect(error.message).toContain(`Refused to read ${link} (a test record): it is a symbolic link`);
    expect(error.details).toEqual({ path: link });
  });

  it("refuses what is not a regular file (a folder, a FIFO would block)", async () => {
    const directory = scratch();
    mkdirSync(join(directory, "folder"));
    expect((await refusal(readHostOwnedFile(join(directory, "folder"), options))).message).toContain("it is not a regular file");
  });

  (asRoot ? it : it.skip)("refuses a file of another user, and accepts root's", async () => {
    const directory = scratch();
    const foreign = file(directory, "foreign");
    chownSync(foreign, OTHER, myGroup);
    expect(ownershipProblem(lstatSync(foreign))).toBe(`it belongs to uid ${OTHER}, not to uid ${me} that runs Outpost (nor root)`);
    expect((await refusal(readHostOwnedFile(foreign, options))).message).toContain(`it belongs to uid ${OTHER}`);
    const rooted = file(directory, "root");
    chownSync(rooted, 0, 0);
    expect(ownershipProblem(lstatSync(rooted))).toBeUndefined();
  });

  it("refuses a file every user can write", async () => {
    const directory = scratch();
    const open = file(directory, "open", 0o646);
    expect((await refusal(readHostOwnedFile(open, options))).message).toContain("every user can write it");
  });

  (asRoot ? it : it.skip)("refuses a file another group can write, and accepts it read-only for that group", async () => {
    const directory = scratch();
    const shared = file(directory, "shared", 0o664);
    chownSync(shared, me, OTHER);
    expect((await refusal(readHostOwnedFile(shared, options))).message).toContain(`group ${OTHER} can write it`);
    chmodSync(shared, 0o644);
    expect(ownershipProblem(lstatSync(shared))).toBeUndefined();
  });

  it("refuses a file over maxBytes", async () => {
    const directory = scratch();
    expect((await refusal(readHostOwnedFile(file(directory, "big"), { ...options, maxBytes: 3 }))).message).toContain(
      "it is larger than 3 bytes",
    );
  });
});

describe("assertHostOwnedDirectories", () => {
  it("refuses a folder on the way that is a link, naming it; stops quietly at the first absent one", async () => {
    const top = scratch();
    const elsewhere = scratch();
    mkdirSync(join(top, "a"));
    symlinkSync(elsewhere, join(top, "a", "b"));
    const error = await refusal(assertHostOwnedDirectories(top, join(top, "a", "b", "c"), options));
    expect(error.message).toContain(`Refused to read ${join(top, "a", "b")} (a test record): it is a symbolic link`);
    await expect(assertHostOwnedDirectories(top, join(top, "a", "absent", "c"), options)).resolves.toBeUndefined();
    // Outside `top`: not its business.
    await expect(assertHostOwnedDirectories(join(top, "a"), elsewhere, options)).resolves.toBeUndefined();
  });

  it("refuses a folder on the way that every user can write, or that is a file", async () => {
    const top = scratch();
    mkdirSync(join(top, "open"));
    chmodSync(join(top, "open"), 0o777);
    expect((await refusal(assertHostOwnedDirectories(top, join(top, "open", "x"), options))).message).toContain("every user can write it");
    file(top, "plain");
    expect((await refusal(assertHostOwnedDirectories(top, join(top, "plain", "x"), options))).message).toContain("it is not a directory");
  });

  (asRoot ? it : it.skip)("refuses a folder on the way that belongs to another user", async () => {
    const top = scratch();
    mkdirSync(join(top, "theirs"));
    chownSync(join(top, "theirs"), OTHER, OTHER);
    expect((await refusal(assertHostOwnedDirectories(top, join(top, "theirs"), options))).message).toContain(`it belongs to uid ${OTHER}`);
  });
});
