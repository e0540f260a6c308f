import { fork, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { acquireFileLock, withFileLock } from "../src/workspace/file-lock.js";
import { currentProcess, identityOf } from "@outpost/plugin-utils";

const here = dirname(fileURLToPath(import.meta.url));
const repositoryRoot = resolve(here, "../../..");
const tsxArguments = ["--conditions=outpost-source", "--import", join(repositoryRoot, "node_modules/tsx/dist/loader.mjs")];
const scratches: string[] = [];
const children: ChildProcess[] = [];

function scratch(): string {
  const directory = mkdtempSync(join(tmpdir(), "outpost-lock-race-"));
  scratches.push(directory);
  return directory;
}

afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  for (const directory of scratches.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** The identity a process had, once it has exited: what a crashed owner leaves in its lock file. */
async function deadIdentity() {
  const child = spawn("sleep", ["30"]);
  await new Promise((done) => child.once("spawn", done));
  const identity = identityOf(child.pid!)!;
  child.kill("SIGKILL");
  await new Promise((done) => child.once("exit", done));
  return identity;
}

function staleLock(path: string, owner: object): void {
  writeFileSync(path, JSON.stringify({ owner, token: `stale-${Math.random()}`, acquiredAt: new Date(0).toISOString() }));
}

describe("file locks between processes", () => {
  it("16 processes racing for one stale lock: in 50 rounds, never two inside", async () => {
    const directory = scratch();
    const lock = join(directory, "race.lock");
    const dead = await deadIdentity();
    const contenders = Array.from({ length: 16 }, () => {
      const child = fork(join(here, "support/lock-contender.ts"), [lock, directory], {
        execArgv: tsxArguments,
        stdio: ["ignore", "ignore", "inherit", "ipc"],
      });
      children.push(child);
      child.once("exit", (code) => {
        if (code !== null) throw new Error(`a contender exited with ${code}`);
      });
      return child;
    });
    await Promise.all(contenders.map((child) => new Promise((done) => child.once("message", done))));
    let overlaps = 0;
    for (let round = 0; round < 50; round += 1) {
      staleLock(lock, dead);
      const finished = contenders.map((child) => new Promise<{ overlap: boolean }>((done) => child.once("message", done)));
      for (const child of contenders) child.send({ round });
      overlaps += (await Promise.all(finished)).filter((reply) => reply.overlap).length;
      expect(existsSync(lock), `round ${round}: the last holder removed its lock`).toBe(false);
    }
    expect(overlaps).toBe(0);
  }, 120_000);

  it("a lock whose pid lives but with another start time (a reused pid) is stale", async () => {
    const lock = join(scratch(), "reused.lock");
    staleLock(lock, { ...currentProcess(), pid: process.ppid, startTime: "1" });
    expect(await withFileLock(lock, async () => "ran", { waitMs: 2_000 })).toBe("ran");
  });

  it("a live owner is waited for, with a message naming it, until the wait ends (code timeout)", async () => {
    const lock = join(scratch(), "live.lock");
    staleLock(lock, identityOf(process.ppid)!);
    const messages: string[] = [];
    await expect(
      withFileLock(lock, async () => "ran", { waitMs: 1_500, onWait: (message) => messages.push(message) }),
    ).rejects.toMatchObject({ code: "timeout" });
    expect(messages[0]).toContain(`pid ${process.ppid} on host`);
    expect(existsSync(lock)).toBe(true);
  });

  it("only the owner deletes: a holder whose lock was replaced leaves the new one alone", async () => {
    const lock = join(scratch(), "owned.lock");
    const first = await acquireFileLock(lock);
    rmSync(lock);
    const second = await acquireFileLock(lock, { waitMs: 1_000 });
    await first.release();
    expect(existsSync(lock)).toBe(true);
    await second.release();
    expect(existsSync(lock)).toBe(false);
  });

  it("a lock held by a process killed with SIGKILL is taken over", async () => {
    const lock = join(scratch(), "killed.lock");
    const holder = spawn(process.execPath, [...tsxArguments, join(here, "support/lock-holder.ts"), lock], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    children.push(holder);
    await new Promise((done) => holder.stdout.once("data", done));
    await expect(withFileLock(lock, async () => "ran", { waitMs: 200 })).rejects.toMatchObject({ code: "timeout" });
    holder.kill("SIGKILL");
    await new Promise((done) => holder.once("exit", done));
    expect(await withFileLock(lock, async () => "ran", { waitMs: 2_000 })).toBe("ran");
  });

  it("a lock from another boot of this host is stale; one from another host's boot is not judged", async () => {
    const directory = scratch();
    const self = currentProcess();
    staleLock(join(directory, "boot.lock"), { ...self, bootId: "00000000-0000-0000-0000-000000000000" });
    expect(await withFileLock(join(directory, "boot.lock"), async () => "ran", { waitMs: 2_000 })).toBe("ran");
    staleLock(join(directory, "remote.lock"), { ...self, host: "elsewhere", bootId: "00000000-0000-0000-0000-000000000000" });
    const messages: string[] = [];
    await expect(
      withFileLock(join(directory, "remote.lock"), async () => "ran", { waitMs: 1_200, onWait: (message) => messages.push(message) }),
    ).rejects.toMatchObject({ code: "timeout" });
    expect(messages[0]).toContain("cannot be checked from here");
  });
});

const docker = spawnSync("docker", ["image", "inspect", "outpost-test:latest"], { encoding: "utf8", timeout: 10_000 });
const dockerMissing = docker.status === 0 ? undefined : "no Docker engine or no outpost-test image (tools/build-test-image.sh)";
if (dockerMissing && process.env.OUTPOST_REQUIRE_DOCKER === "1")
  throw new Error(`Docker is required (OUTPOST_REQUIRE_DOCKER=1): ${dockerMissing}`);

describe.skipIf(dockerMissing !== undefined)(
  `file locks held inside a container${dockerMissing ? ` (unavailable: ${dockerMissing})` : ""}`,
  () => {
    it("are respected while the container runs and taken over once it was killed (another pid namespace)", async () => {
      const directory = scratch();
      const lock = join(directory, "container.lock");
      const name = `outpost-lock-test-${process.pid}-${Date.now()}`;
      const run = spawnSync(
        "docker",
        [
          "run",
          "-d",
          "--name",
          name,
          "--network",
          "none",
          "-v",
          `${repositoryRoot}:${repositoryRoot}:ro`,
          "-v",
          `${directory}:${directory}`,
          "outpost-test:latest",
          "node",
          ...tsxArguments,
          join(here, "support/lock-holder.ts"),
          lock,
        ],
        { encoding: "utf8", timeout: 60_000 },
      );
      expect(run.status, run.stderr).toBe(0);
      try {
        for (let attempt = 0; attempt < 300 && !existsSync(lock); attempt += 1) await new Promise((done) => setTimeout(done, 100));
        const owner = JSON.parse(readFileSync(lock, "utf8")).owner as { pidNamespace: string };
        expect(owner.pidNamespace).not.toBe(currentProcess().pidNamespace);
        await expect(withFileLock(lock, async () => "ran", { waitMs: 300 })).rejects.toMatchObject({ code: "timeout" });
        expect(spawnSync("docker", ["kill", name], { timeout: 30_000 }).status).toBe(0);
        expect(await withFileLock(lock, async () => "ran", { waitMs: 5_000 })).toBe("ran");
      } finally {
        spawnSync("docker", ["rm", "-f", name], { timeout: 30_000 });
      }
    }, 90_000);
  },
);
