import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isOutpostError } from "@outpost/core";
import { fsTransport } from "../src/index.js";

const bytes = (text: string) => new TextEncoder().encode(text);

/** The pid of a process that has exited: a lock it held is stale. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(child.stdout);
}

// Locks guard replacements and removes; create-only writes need none (link() is atomic), so these
// cases lock an existing object and replace it.
describe("fsTransport key locks", () => {
  let store = "";
  beforeEach(async () => {
    store = await mkdtemp(join(tmpdir(), "outpost-fs-lock-"));
  });
  afterEach(() => rm(store, { recursive: true, force: true }));

  it("takes over a lock left by a process that died, and removes it afterwards", async () => {
    const transport = fsTransport({ directory: store, lockTimeoutMs: 2_000 });
    const first = await transport.write("dir/k.txt", bytes("before"), { ifRevision: null });
    await writeFile(join(store, "dir", "k.txt~outpost-lock"), JSON.stringify({ host: hostname(), pid: deadPid(), token: "stale" }));
    const entry = await transport.write("dir/k.txt", bytes("after crash"), { ifRevision: first.revision });
    expect(entry.size).toBe(11);
    expect(await readdir(join(store, "dir"))).toEqual(["k.txt~outpost"]);
  });

  it("waits for a live lock and fails with code timeout, leaving the object untouched", async () => {
    const transport = fsTransport({ directory: store, lockTimeoutMs: 300 });
    const entry = await transport.write("k.txt", bytes("before"), { ifRevision: null });
    // This very process is alive, so its lock must be respected.
    await writeFile(join(store, "k.txt~outpost-lock"), JSON.stringify({ host: hostname(), pid: process.pid, token: "live" }));
    const error = await transport.write("k.txt", bytes("after"), { ifRevision: entry.revision }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "timeout")).toBe(true);
    expect((error as Error).message).toMatch(/locked/);
    expect(new TextDecoder().decode((await transport.read("k.txt"))?.bytes)).toBe("before");
  });

  it("never breaks a lock held on another host", async () => {
    const transport = fsTransport({ directory: store, lockTimeoutMs: 300 });
    const first = await transport.write("k.txt", bytes("before"), { ifRevision: null });
    await writeFile(
      join(store, "k.txt~outpost-lock"),
      JSON.stringify({ host: `${hostname()}-elsewhere`, pid: deadPid(), token: "remote" }),
    );
    const error = await transport.remove("k.txt", { ifRevision: first.revision }).catch((caught: unknown) => caught);
    expect(isOutpostError(error, "timeout")).toBe(true);
    expect((await transport.read("k.txt"))?.revision).toBe(first.revision);
  });

  it("recovers an unreadable lock only once it is old", async () => {
    const transport = fsTransport({ directory: store, lockTimeoutMs: 300 });
    const first = await transport.write("k.txt", bytes("before"), { ifRevision: null });
    const lock = join(store, "k.txt~outpost-lock");
    await writeFile(lock, "");
    expect(
      isOutpostError(
        await transport.write("k.txt", bytes("x"), { ifRevision: first.revision }).catch((caught: unknown) => caught),
        "timeout",
      ),
    ).toBe(true);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    await expect(transport.write("k.txt", bytes("x"), { ifRevision: first.revision })).resolves.toMatchObject({ key: "k.txt" });
  });

  it("an abort while waiting for a lock rejects with code aborted", async () => {
    const transport = fsTransport({ directory: store, lockTimeoutMs: 10_000 });
    const first = await transport.write("k.txt", bytes("before"), { ifRevision: null });
    await writeFile(join(store, "k.txt~outpost-lock"), JSON.stringify({ host: hostname(), pid: process.pid, token: "live" }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("stop waiting")), 100);
    const error = await transport
      .write("k.txt", bytes("x"), { ifRevision: first.revision, signal: controller.signal })
      .catch((caught: unknown) => caught);
    expect(isOutpostError(error, "aborted")).toBe(true);
  });
});
