import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EXTRACT_TAR } from "../src/transfer-scripts.js";

/** Runs EXTRACT_TAR (destination, anchor) with an empty file list and an empty archive; returns its exit status. */
function extract(destination: string, anchor: string, cwd: string): { status: number | null; stderr: string } {
  const archive = execFileSync("tar", ["-cf", "-", "-T", "/dev/null"]);
  const input = Buffer.concat([Buffer.from("\n"), archive]);
  const run = spawnSync("/bin/sh", ["-c", EXTRACT_TAR, "outpost-upload", destination, anchor], { input, cwd, encoding: "utf8" });
  return { status: run.status, stderr: run.stderr };
}

describe("EXTRACT_TAR's anchor check (directories resolved by the shell, no readlink)", () => {
  const root = mkdtempSync(join(tmpdir(), "outpost-anchor-"));
  const anchor = join(root, "root");
  mkdirSync(join(anchor, "inside"), { recursive: true });
  mkdirSync(join(root, "outside"));
  symlinkSync(join(root, "outside"), join(anchor, "out"));
  symlinkSync("inside", join(anchor, "in"));
  // The anchor itself reached through a link resolves too.
  symlinkSync(anchor, join(root, "root-link"));

  it("accepts destinations inside, also new ones and ones through a link that stays inside", () => {
    for (const destination of [join(anchor, "inside"), join(anchor, "new/deeper"), join(anchor, "in/new"), "new-relative"])
      expect(extract(destination, join(root, "root-link"), anchor)).toMatchObject({ status: 0 });
  });

  it("refuses (90) a destination reached through a link that leaves the anchor, existing or new below it", () => {
    for (const destination of [join(anchor, "out"), join(anchor, "out/new/deeper"), join(root, "outside")]) {
      const run = extract(destination, anchor, anchor);
      expect(run.status, destination).toBe(90);
      expect(run.stderr).toContain("is reached through a link that leaves");
    }
  });
});
