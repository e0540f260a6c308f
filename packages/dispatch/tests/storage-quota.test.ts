import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { reserveStorage, type StorageReservation } from "../src/quota/storage-quota.js";

const checkouts: string[] = [];

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), "outpost-quota-"));
  checkouts.push(root);
  return root;
}

afterEach(() => {
  for (const root of checkouts.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe("reserveStorage", () => {
  it("admits concurrent reservations only while they fit: never more than maxBytes reserved", async () => {
    const root = checkout();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, (_, index) => reserveStorage(root, { reserveBytes: 100, maxBytes: 450 }, `r${index}`)),
    );
    const admitted = outcomes.filter((outcome): outcome is PromiseFulfilledResult<StorageReservation> => outcome.status === "fulfilled");
    expect(admitted).toHaveLength(4);
    for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ code: "configuration" });
    await Promise.all(admitted.map((outcome) => outcome.value.release()));
    expect(readdirSync(join(root, ".outpost", "reservations"))).toEqual([]);
  });

  it("ignores and removes corrupt reservations and those of dead processes", async () => {
    const root = checkout();
    const directory = join(root, ".outpost", "reservations");
    mkdirSync(directory, { recursive: true });
    const child = spawn(process.execPath, ["-e", ""]);
    await new Promise((done) => child.on("exit", done));
    writeFileSync(join(directory, "dead.json"), JSON.stringify({ pid: child.pid, bytes: 10_000 }));
    writeFileSync(join(directory, "corrupt.json"), "{not json");
    writeFileSync(join(directory, "wrong.json"), JSON.stringify({ pid: "1", bytes: "lots" }));
    const reservation = await reserveStorage(root, { reserveBytes: 500, maxBytes: 1_000 }, "mine");
    expect(readdirSync(directory)).toEqual(["mine.json"]);
    await reservation.release();
    await reservation.release();
  });

  it("counts the bytes under .outpost but not links leaving it", async () => {
    const root = checkout();
    mkdirSync(join(root, ".outpost", "workspaces", "w"), { recursive: true });
    writeFileSync(join(root, ".outpost", "workspaces", "w", "big"), Buffer.alloc(900));
    const outside = join(checkout(), "huge");
    writeFileSync(outside, Buffer.alloc(50_000));
    symlinkSync(outside, join(root, ".outpost", "workspaces", "w", "link-to-huge"));
    await expect(reserveStorage(root, { reserveBytes: 200, maxBytes: 1_000 }, "a")).rejects.toMatchObject({
      code: "configuration",
      details: { used: 902 },
    });
  });

  it("refuses nonsense numbers", async () => {
    await expect(reserveStorage(checkout(), { reserveBytes: -1, maxBytes: 10 }, "a")).rejects.toMatchObject({ code: "configuration" });
    await expect(reserveStorage(checkout(), { reserveBytes: 1, maxBytes: Number.NaN }, "a")).rejects.toMatchObject({
      code: "configuration",
    });
  });

  it("reserveBytes is optional: the limit is checked without holding room", async () => {
    const root = checkout();
    const reservation = await reserveStorage(root, { maxBytes: 10_000 }, "check-only");
    expect(reservation.bytes).toBe(0);
    mkdirSync(join(root, ".outpost", "workspaces"), { recursive: true });
    writeFileSync(join(root, ".outpost", "workspaces", "big"), Buffer.alloc(20_000));
    await expect(reserveStorage(root, { maxBytes: 10_000 }, "over")).rejects.toMatchObject({ code: "configuration" });
    await reservation.release();
  });

  it("maxEntries limits the entries under .outpost plus those reserved, across concurrent reservations", async () => {
    const root = checkout();
    mkdirSync(join(root, ".outpost", "conversations", "a", "b"), { recursive: true });
    for (const name of ["1", "2", "3"]) writeFileSync(join(root, ".outpost", "conversations", "a", "b", name), "x");
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6 }, (_, index) => reserveStorage(root, { maxBytes: 1e9, maxEntries: 40, reserveEntries: 10 }, `e${index}`)),
    );
    const admitted = outcomes.filter((outcome): outcome is PromiseFulfilledResult<StorageReservation> => outcome.status === "fulfilled");
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.length).toBeLessThan(4);
    const refused = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
    expect(refused?.reason).toMatchObject({ code: "configuration", message: expect.stringContaining("exceeds maxEntries 40") });
    expect(refused?.reason).toMatchObject({ details: { maxEntries: 40, requestedEntries: 10 } });
    await Promise.all(admitted.map((outcome) => outcome.value.release()));
    expect(await reserveStorage(root, { maxBytes: 1e9, maxEntries: 40, reserveEntries: 10 }, "after")).toMatchObject({ bytes: 0 });
  });

  it("refuses nonsense entry limits and a missing maxBytes", async () => {
    await expect(reserveStorage(checkout(), { maxBytes: 10, maxEntries: -1 }, "a")).rejects.toMatchObject({ code: "configuration" });
    await expect(reserveStorage(checkout(), { maxBytes: 10, reserveEntries: Number.POSITIVE_INFINITY }, "a")).rejects.toMatchObject({
      code: "configuration",
    });
    await expect(reserveStorage(checkout(), {} as { maxBytes: number }, "a")).rejects.toMatchObject({
      code: "configuration",
      message: expect.stringContaining("maxBytes is required"),
    });
  });
});
