import { chmodSync, chownSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readHostFile } from "../src/workspace/host-written.js";

// What dispatch adds to core's rule: the folders from the checkout's `.outpost` down to the file are checked too.
const asRoot = process.geteuid?.() === 0;
const options = (root: string) => ({ what: "an activity record", code: "workspace" as const, root });

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), "outpost-host-written-"));
  mkdirSync(join(root, ".outpost", "storage", "activity"), { recursive: true });
  return root;
}

async function refused(read: Promise<unknown>): Promise<{ code: string; message: string }> {
  return read.then(
    () => {
      throw new Error("it was read");
    },
    (error: unknown) => error as { code: string; message: string },
  );
}

describe("readHostFile", () => {
  it("reads a record the host user wrote under .outpost", async () => {
    const root = checkout();
    writeFileSync(join(root, ".outpost", "storage", "activity", "a.json"), "{}");
    expect((await readHostFile(join(root, ".outpost", "storage", "activity", "a.json"), options(root)))?.toString()).toBe("{}");
  });

  it("refuses a record behind a folder on the way that is a link, naming the link", async () => {
    const root = checkout();
    const elsewhere = mkdtempSync(join(tmpdir(), "outpost-elsewhere-"));
    writeFileSync(join(elsewhere, "a.json"), "{}");
    symlinkSync(elsewhere, join(root, ".outpost", "storage", "planted"));
    const error = await refused(readHostFile(join(root, ".outpost", "storage", "planted", "a.json"), options(root)));
    expect(error.code).toBe("workspace");
    expect(error.message).toContain(
      `Refused to read ${join(root, ".outpost", "storage", "planted")} (an activity record): it is a symbolic link`,
    );
  });

  it("refuses a record below a folder every user can write", async () => {
    const root = checkout();
    chmodSync(join(root, ".outpost", "storage"), 0o777);
    writeFileSync(join(root, ".outpost", "storage", "activity", "a.json"), "{}");
    const error = await refused(readHostFile(join(root, ".outpost", "storage", "activity", "a.json"), options(root)));
    expect(error.message).toContain(`${join(root, ".outpost", "storage")} (an activity record): every user can write it`);
  });

  (asRoot ? it : it.skip)("refuses a record of another user, and one below a folder of another user", async () => {
    const root = checkout();
    const record = join(root, ".outpost", "storage", "activity", "a.json");
    writeFileSync(record, "{}");
    chownSync(record, 4242, 4242);
    expect((await refused(readHostFile(record, options(root)))).message).toContain("it belongs to uid 4242");
    chownSync(record, 0, 0);
    chownSync(join(root, ".outpost", "storage", "activity"), 4242, 4242);
    expect((await refused(readHostFile(record, options(root)))).message).toContain(
      `${join(root, ".outpost", "storage", "activity")} (an activity record): it belongs to uid 4242`,
    );
  });
});
