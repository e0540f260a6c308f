import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { scratchRepository } from "../src/index.js";
import { startOutpost } from "./support/cli-process.js";

function outpost(args: readonly string[], cwd: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = startOutpost(args, cwd);
  let [stdout, stderr] = ["", ""];
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on("exit", (status) => done({ status, stdout, stderr })));
}

describe("outpost unlock", () => {
  it("breaks a lock whose holder is gone at once, one that looks alive only with --force", async () => {
    const repository = scratchRepository();
    const locks = join(repository, ".outpost", "locks");
    mkdirSync(locks, { recursive: true, mode: 0o700 });
    const path = join(locks, "integrate-main.lock");
    // Held from another machine, renewed just now: it looks alive.
    writeFileSync(
      path,
      JSON.stringify({ owner: { pid: 7, host: "elsewhere", bootId: "other" }, token: "t", acquiredAt: "2026-01-01T00:00:00Z" }),
      {
        mode: 0o600,
      },
    );
    const refused = await outpost(["unlock", "integrate-main"], repository);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(
      /conflict: The lock .*integrate-main\.lock is held by pid 7 on host elsewhere.*outpost unlock integrate-main --force/,
    );
    expect(existsSync(path)).toBe(true);
    const forced = await outpost(["unlock", "integrate-main", "--force"], repository);
    expect(forced.status, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/Removed the lock .*integrate-main\.lock, held by pid 7 on host elsewhere.*\(forced\)/);
    expect(existsSync(path)).toBe(false);

    // An old pid-only lock of a process that exited: gone, broken without --force.
    const exited = spawn(process.execPath, ["-e", ""]);
    await new Promise((done) => exited.once("exit", done));
    writeFileSync(path, `${exited.pid}\n`, { mode: 0o600 });
    const gone = await outpost(["unlock", "integrate-main"], repository);
    expect(gone.status, gone.stderr).toBe(0);
    expect(gone.stdout).toContain("(gone)");
    expect(existsSync(path)).toBe(false);
    const none = await outpost(["unlock", "integrate-main"], repository);
    expect(none.stderr).toMatch(/configuration: There is no lock/);
  });
});
