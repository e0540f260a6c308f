import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeGated, dockerGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { breakFileLock, tryFileLock } from "../src/workspace/file-lock.js";
import { LOCK_SILENCE_MS } from "../src/workspace/lock-judgement.js";

const scratches: string[] = [];
function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-lock-owner-"));
  scratches.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of scratches.splice(0)) rmSync(directory, { recursive: true, force: true });
});

const taken = async (path: string) => {
  const lock = await tryFileLock(path);
  if (!("release" in lock)) return false;
  await lock.release();
  return true;
};
const ageFile = (path: string, ms: number) => utimesSync(path, new Date(Date.now() - ms), new Date(Date.now() - ms));
const lockOf = (owner: Record<string, unknown>, renewsEveryMs?: number) =>
  JSON.stringify({ owner, token: "t", acquiredAt: new Date().toISOString(), ...(renewsEveryMs ? { renewsEveryMs } : {}) });

describe("locks in the old pid-only format are judged by what can be proven", () => {
  it("a dead pid, or a live pid that started after the file was written (reused), is taken over at once", async () => {
    const path = join(scratch(), "old.lock");
    const child = spawn("sleep", ["30"]);
    try {
      writeFileSync(path, `${child.pid}\n`);
      expect(await taken(path)).toBe(false);
      // The same pid, but its process started after the lock was written: not the writer.
      writeFileSync(path, `${child.pid}\n`);
      ageFile(path, 60_000);
      expect(await taken(path)).toBe(true);
    } finally {
      child.kill("SIGKILL");
    }
    const gone = spawn(process.execPath, ["-e", ""]);
    await new Promise((done) => gone.once("exit", done));
    writeFileSync(path, `${gone.pid}\n`);
    expect(await taken(path)).toBe(true);
  });
});

describe("a holder that cannot be checked from here (another host or container)", () => {
  it("is waited for while it renews its lock, taken over once silent past the window", async () => {
    const path = join(scratch(), "far.lock");
    writeFileSync(path, lockOf({ pid: 1, host: "another-machine", bootId: "not-this-boot" }, 5_000));
    expect(await taken(path)).toBe(false);
    ageFile(path, LOCK_SILENCE_MS + 5_000);
    expect(await taken(path)).toBe(true);
    // An older outpost's lock never said it renews: its silence proves nothing, it is still waited for.
    writeFileSync(path, lockOf({ pid: 1, host: "another-machine", bootId: "not-this-boot" }));
    ageFile(path, LOCK_SILENCE_MS + 5_000);
    expect(await taken(path)).toBe(false);
  });

  it("can be broken by a person: a silent one at once, one that looks alive only with force", async () => {
    const path = join(scratch(), "held.lock");
    writeFileSync(path, lockOf({ pid: 1, host: "another-machine", bootId: "not-this-boot" }));
    expect(await breakFileLock(path)).toMatchObject({ stale: false, removed: false });
    expect(existsSync(path)).toBe(true);
    expect(await breakFileLock(path, true)).toMatchObject({ stale: false, removed: true });
    expect(existsSync(path)).toBe(false);
  });
});

const docker = await dockerGate();
/** Whether the lock is taken within 5 s: judgements of one process are cached for half a second. */
async function eventuallyTaken(path: string): Promise<boolean> {
  for (let tries = 0; tries < 50; tries += 1) {
    if (await taken(path)) return true;
    await new Promise((done) => setTimeout(done, 100));
  }
  return false;
}

describeGated("a lock held from another pid namespace: pid 1 of a container", docker, () => {
  it("is held while the container runs and taken over at once after it is killed, or restarted", async () => {
    const directory = scratch();
    const path = join(directory, "container.lock");
    const root = join(import.meta.dirname, "../../..");
    // The container's pid 1 writes the lock with its own identity, as an outpost run inside it does.
    const script = [
      `const { currentProcess } = await import(${JSON.stringify(join(root, "packages/plugin-utils/dist/index.js"))});`,
      `(await import("node:fs")).writeFileSync("/locks/container.lock", JSON.stringify({ owner: currentProcess(), token: "c", acquiredAt: new Date().toISOString() }));`,
      "setInterval(() => {}, 1000);",
    ].join("\n");
    const run = (...args: string[]) => execFileSync("docker", args, { encoding: "utf8" }).trim();
    const container = run(
      "run",
      "-d",
      "--user",
      `${process.getuid!()}`,
      "-v",
      `${root}:${root}:ro`,
      "-v",
      `${directory}:/locks`,
      TEST_IMAGE,
      "node",
      "--input-type=module",
      "-e",
      script,
    );
    try {
      for (let tries = 0; !existsSync(path) && tries < 200; tries += 1) await new Promise((done) => setTimeout(done, 100));
      const owner = (JSON.parse(readFileSync(path, "utf8")) as { owner: Record<string, unknown> }).owner;
      expect(owner).toMatchObject({ pid: 1, containerId: container });
      expect(owner.pidNamespace).not.toBe(execFileSync("readlink", ["/proc/self/ns/pid"], { encoding: "utf8" }).trim());
      expect(await taken(path)).toBe(false);
      run("restart", "-t", "0", container);
      // The same container in a new pid namespace: what its earlier pid 1 held is free at once.
      const restarted = join(directory, "restarted.lock");
      writeFileSync(restarted, lockOf(owner));
      // A restart can take less than the half second a judgement of the old pid 1 stays cached.
      expect(await eventuallyTaken(restarted)).toBe(true);
      // Its new pid 1 holds its own lock again; killed, the container leaves a lock nobody holds.
      for (let tries = 0; tries < 200; tries += 1) {
        const current = (JSON.parse(readFileSync(path, "utf8")) as { owner: { startTime?: string } }).owner;
        if (current.startTime !== owner.startTime) break;
        await new Promise((done) => setTimeout(done, 100));
      }
      expect(await taken(path)).toBe(false);
      run("kill", container);
      // Judgements of one process are cached for half a second: the next try after that takes it.
      expect(await eventuallyTaken(path)).toBe(true);
    } finally {
      execFileSync("docker", ["rm", "-f", container], { stdio: "ignore" });
    }
  });
});
