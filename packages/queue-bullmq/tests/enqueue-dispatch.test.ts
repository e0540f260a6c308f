import { afterAll, expect, it } from "vitest";
import { Redis } from "ioredis";
import { isOutpostError } from "@outpost/core";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { acquireFence, assertNoEviction, committedResultKey, enqueueDispatch, openDispatchQueue, type DispatchJob } from "../src/index.js";

const gated = await redisGate();
const evicting = gated.server ? await redisGate({ maxmemoryPolicy: "allkeys-lru" }) : {};
afterAll(async () => {
  await gated.server?.stop();
  await evicting.server?.stop();
});

const job: DispatchJob = {
  brief: "write a file",
  agent: { name: "shell" },
  provider: { name: "local" },
  repository: { url: "/srv/none.git" },
};

describeGated("enqueueDispatch on a real Redis", gated, () => {
  it("queues plain data; a second enqueue with the same idempotency key is a no-op", async () => {
    const queue = openDispatchQueue({ url: gated.server!.url, name: "enqueue" });
    try {
      const first = await enqueueDispatch(queue, { ...job, idempotencyKey: "same-work" });
      const second = await enqueueDispatch(queue, { ...job, brief: "other text", idempotencyKey: "same-work" });
      const other = await enqueueDispatch(queue, job);
      expect(first).toEqual({ id: "key-same-work", added: true });
      expect(second).toEqual({ id: "key-same-work", added: false });
      expect(other.added).toBe(true);
      expect(await queue.queue.getJobCountByTypes("waiting")).toBe(2);
      const stored = await queue.queue.getJob("key-same-work");
      expect(stored?.data.job.brief).toBe("write a file");
      expect(stored?.opts.attempts).toBe(3);
    } finally {
      await queue.close();
    }
  });

  it("refuses an invalid job before anything reaches Redis", async () => {
    const queue = openDispatchQueue({ url: gated.server!.url, name: "refused" });
    try {
      const bad = { ...job, agent: { name: "shell", options: { apiKey: "sk-secret" } } };
      await expect(enqueueDispatch(queue, bad)).rejects.toMatchObject({ code: "configuration" });
      expect(await queue.queue.getJobCountByTypes("waiting", "delayed", "active")).toBe(0);
      await expect(enqueueDispatch(queue, job, { attempts: 0 })).rejects.toMatchObject({ code: "configuration" });
    } finally {
      await queue.close();
    }
  });

  it("a queue name or URL that cannot work fails with configuration", () => {
    expect(() => openDispatchQueue({ url: gated.server!.url, name: "a:b" })).toThrow(/Queue name/);
    expect(() => openDispatchQueue({ url: "http://user:pw@host" })).toThrow(/redis:\/\/host/);
    try {
      openDispatchQueue({ url: "http://user:pw@host" });
    } catch (error) {
      expect((error as Error).message).not.toContain("pw");
    }
  });

  it("the noeviction check passes on noeviction and explains the fix otherwise", async () => {
    const good = new Redis(gated.server!.url);
    try {
      await assertNoEviction(good, gated.server!.url);
    } finally {
      good.disconnect();
    }
    const bad = new Redis(evicting.server!.url);
    try {
      const failure = await assertNoEviction(bad, evicting.server!.url).catch((error: unknown) => error);
      expect(isOutpostError(failure, "configuration")).toBe(true);
      expect((failure as Error).message).toMatch(/allkeys-lru.*maxmemory-policy noeviction/);
    } finally {
      bad.disconnect();
    }
  });

  it("the fence: a newer attempt's token refuses the older attempt's push and result", async () => {
    const redis = new Redis(gated.server!.url);
    try {
      const stale = await acquireFence(redis, "fenced", "job-1");
      const current = await acquireFence(redis, "fenced", "job-1");
      expect(current.token).toBe(stale.token + 1);
      await expect(stale.check("push")).rejects.toMatchObject({ code: "conflict" });
      await expect(stale.commit("results/stale.json")).rejects.toMatchObject({ code: "conflict" });
      await current.check("push");
      await current.commit("results/current.json");
      expect(await committedResultKey(redis, "fenced", "job-1")).toBe("results/current.json");
      // Even the holder cannot record a second result.
      await expect(current.commit("results/again.json")).rejects.toMatchObject({ code: "conflict" });
      // Twenty attempts racing for one job: exactly one commit wins.
      const racers = await Promise.all(Array.from({ length: 20 }, () => acquireFence(redis, "fenced", "job-2")));
      const outcomes = await Promise.allSettled(racers.map((racer) => racer.commit(`results/${racer.token}.json`)));
      expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      expect(await committedResultKey(redis, "fenced", "job-2")).toBe(`results/${Math.max(...racers.map((racer) => racer.token))}.json`);
    } finally {
      redis.disconnect();
    }
  });
});
