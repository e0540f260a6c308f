import { mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OutpostError } from "@outpost/core";
import { assertNoLinkLeavesDestination } from "../src/index.js";

let scratch: string;
let base: string;
beforeEach(async () => {
  scratch = await mkdtemp(join(tmpdir(), "plugin-utils-destination-"));
  base = join(scratch, "base");
  await mkdir(join(base, "inside"), { recursive: true });
  await mkdir(join(scratch, "outside"));
});
afterEach(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("assertNoLinkLeavesDestination", () => {
  it("refuses a write through a link on the way that leads outside the destination", async () => {
    await symlink(join(scratch, "outside"), join(base, "escape"));
    const error = await assertNoLinkLeavesDestination(base, ["escape/file"], new Set()).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutpostError);
    expect((error as OutpostError).details).toMatchObject({ path: "escape/file", link: "escape" });
  });

  it("refuses a directory that would receive children through an escaping link, and a dangling link on the way", async () => {
    await symlink(join(scratch, "outside"), join(base, "escape"));
    await symlink(join(scratch, "nowhere"), join(base, "dangling"));
    await expect(assertNoLinkLeavesDestination(base, ["escape"], new Set(["escape"]))).rejects.toThrow(/leads outside/);
    await expect(assertNoLinkLeavesDestination(base, ["dangling/x"], new Set())).rejects.toThrow(/leads outside/);
  });

  it("allows a link that is the last part of a file path (it is replaced, not followed) and links that stay inside", async () => {
    await symlink(join(scratch, "outside"), join(base, "escape"));
    await symlink("inside", join(base, "alias"));
    await assertNoLinkLeavesDestination(base, ["escape", "alias/file", "new/deeper/file"], new Set(["new", "new/deeper"]));
  });

  it("passes a destination that does not exist yet", async () => {
    await assertNoLinkLeavesDestination(join(scratch, "later"), ["a/b"], new Set(["a"]));
  });
});
