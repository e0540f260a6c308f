import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { withFileLock } from "../src/workspace/file-lock.js";

const scratches: string[] = [];

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-lock-"));
  scratches.push(directory);
  return directory;
}

afterEach(() => {
  for (const directory of scratches.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe("withFileLock", () => {
  it("serializes concurrent read-modify-write sections: no update is lost", async () => {
    const directory = scratch();
    const counter = join(directory, "counter");
    writeFileSync(counter, "0");
    await Promise.all(
      Array.from({ length: 25 }, () =>
        withFileLock(join(directory, "l.lock"), async () => {
          const value = Number(await readFile(counter, "utf8"));
          await new Promise((done) => setTimeout(done, 1));
          await writeFile(counter, String(value + 1));
        }),
      ),
    );
    expect(readFileSync(counter, "utf8")).toBe("25");
  });

  it("takes over a lock left by a process that died", async () => {
    const directory = scratch();
    const child = spawn(process.execPath, ["-e", ""]);
    await new Promise((done) => child.on("exit", done));
    writeFileSync(join(directory, "l.lock"), `${child.pid}\n`);
    expect(await withFileLock(join(directory, "l.lock"), async () => "ran", { waitMs: 2_000 })).toBe("ran");
  });

  it("gives up with code timeout while a live owner holds it", async () => {
    const directory = scratch();
    writeFileSync(join(directory, "l.lock"), `${process.ppid}\n`);
    await expect(withFileLock(join(directory, "l.lock"), async () => "ran", { waitMs: 200 })).rejects.toMatchObject({ code: "timeout" });
  });

  it("releases the lock when the section throws", async () => {
    const directory = scratch();
    const lock = join(directory, "l.lock");
    await expect(
      withFileLock(lock, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await withFileLock(lock, async () => "again", { waitMs: 200 })).toBe("again");
  });
});

describe("withFileLock with a corrupt lock file", () => {
  it("takes over an unreadable lock once it is older than the grace period", async () => {
    const { utimesSync } = await import("node:fs");
    const directory = scratch();
    const lock = join(directory, "l.lock");
    writeFileSync(lock, "garbage\u0000");
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    expect(await withFileLock(lock, async () => "ran", { waitMs: 2_000 })).toBe("ran");
  });

  it("waits for a fresh unreadable lock (it may be being written)", async () => {
    const directory = scratch();
    const lock = join(directory, "l.lock");
    writeFileSync(lock, "");
    await expect(withFileLock(lock, async () => "ran", { waitMs: 200 })).rejects.toMatchObject({ code: "timeout" });
  });
});
