import { afterAll, expect, it } from "vitest";
import { Redis } from "ioredis";
import { localProvider } from "@outpost/provider-local";
import type { SandboxLease, SandboxProvider } from "@outpost/core";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AttemptSandboxes } from "../src/attempt-sandboxes.js";

const gated = await redisGate();
afterAll(async () => {
  await gated.server?.stop();
});

/** The local provider, whose leases are given a sandbox id as a remote provider's would be. */
function namedProvider(id: string): SandboxProvider {
  const local = localProvider({ home: "private" });
  return Object.assign(Object.create(local) as SandboxProvider, {
    name: "moon",
    acquire: async (context: Parameters<SandboxProvider["acquire"]>[0]): Promise<SandboxLease> =>
      Object.assign(Object.create(await local.acquire(context)) as SandboxLease, { sandboxId: id }),
  });
}

describeGated("the sandboxes of a job's attempts, on a real Redis", gated, () => {
  it("an attempt names its sandbox once acquired and forgets it when done; a later attempt removes only earlier ones", async () => {
    const redis = new Redis(gated.server!.url);
    try {
      const directory = mkdtempSync(join(tmpdir(), "outpost-attempt-"));
      const context = { repository: directory, directory, gitDirectories: [], variables: {} };
      const first = new AttemptSandboxes(redis, "attempts", "job-1", 1);
      const lease = await first.recording(namedProvider("sbx-first")).acquire(context);
      expect(lease.root).toBe(directory);
      const done = new AttemptSandboxes(redis, "attempts", "job-1", 2);
      await (await done.recording(namedProvider("sbx-done")).acquire(context)).release();
      await done.forget();
      const later = new AttemptSandboxes(redis, "attempts", "job-1", 4);
      await (await later.recording(namedProvider("sbx-later")).acquire(context)).release();

      // Fence 3 takes the job over: fence 1 died holding its sandbox, fence 2 forgot its own, fence 4 is not earlier.
      const removed: string[] = [];
      const current = new AttemptSandboxes(redis, "attempts", "job-1", 3);
      const failing = async () => {
        throw new Error("the API is down");
      };
      expect(await current.reapEarlier(failing)).toEqual(["could not remove moon sandbox sbx-first of fence 1: the API is down"]);
      expect(await current.reapEarlier(async (id, provider) => void removed.push(`${provider}/${id}`))).toEqual([
        "removed moon sandbox sbx-first of fence 1",
      ]);
      expect(removed).toEqual(["moon/sbx-first"]);
      // Removed once: nothing is left for the next attempt; fence 4's entry stays its own.
      expect(await current.reapEarlier(async () => undefined)).toEqual([]);
      expect(Object.keys(await redis.hgetall("outpost:{attempts:job-1}:sandboxes"))).toEqual(["4"]);
      await lease.release();
    } finally {
      redis.disconnect();
    }
  });

  it("an entry that is not what an attempt writes is dropped, never handed to a remover", async () => {
    const redis = new Redis(gated.server!.url);
    try {
      await redis.hset("outpost:{attempts:job-2}:sandboxes", "1", "not json", "2", JSON.stringify({ provider: 7 }));
      const removed: string[] = [];
      const current = new AttemptSandboxes(redis, "attempts", "job-2", 5);
      expect(await current.reapEarlier(async (id) => void removed.push(id))).toEqual([]);
      expect(removed).toEqual([]);
      expect(await redis.hgetall("outpost:{attempts:job-2}:sandboxes")).toEqual({});
    } finally {
      redis.disconnect();
    }
  });
});
