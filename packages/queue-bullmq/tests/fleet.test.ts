import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { S3Client } from "@aws-sdk/client-s3";
import { describeGated, redisGate, s3Gate } from "@outpost/testkit/gates";
import { s3Transport } from "@outpost/transport-s3";
import { committedResultKey, enqueueDispatch, openDispatchQueue, type StoredDispatchResult } from "../src/index.js";
import { bareRemote, git, signalWorker, startWorker, type WorkerProcess } from "./support/fleet.js";

const redis = await redisGate();
const s3 = redis.server ? await s3Gate() : {};
const gated = { ...(redis.unavailable ? { unavailable: redis.unavailable } : s3.unavailable ? { unavailable: s3.unavailable } : {}) };
const workers: WorkerProcess[] = [];
afterAll(async () => {
  for (const worker of workers) signalWorker(worker, "SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await redis.server?.stop();
  await s3.server?.stop();
});

const JOBS = 30;

describeGated("a fleet of worker processes on a real Redis, S3 and a bare git remote", gated, () => {
  it("every job completes exactly once with its commit on the remote, through a worker killed mid-job and a Redis restart", async () => {
    const remote = bareRemote();
    const bucket = "fleet-results";
    await s3.server!.createBucket(bucket);
    const environment = {
      QUEUE_TEST_REDIS_URL: redis.server!.url,
      QUEUE_TEST_QUEUE: "fleet",
      QUEUE_TEST_S3_ENDPOINT: s3.server!.endpoint,
      QUEUE_TEST_BUCKET: bucket,
    };
    const cacheOf = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));
    for (const name of ["w1", "w2", "w3"]) workers.push(startWorker(name, { ...environment, QUEUE_TEST_CACHE: cacheOf(name) }));
    await Promise.all(workers.map((worker) => worker.waitFor((event) => event.type === "ready")));

    const marker = join(mkdtempSync(join(tmpdir(), "outpost-queue-marker-")), "first-attempt");
    const queue = openDispatchQueue({ url: redis.server!.url, name: "fleet" });
    try {
      // Job 0 is slow: whichever worker takes it is killed while its agent sleeps.
      for (let index = 0; index < JOBS; index += 1) {
        const enqueued = await enqueueDispatch(
          queue,
          {
            brief: index === 0 ? `file-0.txt 60 ${marker}` : `file-${index}.txt`,
            agent: { name: "shell" },
            provider: { name: "local" },
            repository: { url: remote, base: "main" },
            idempotencyKey: `fleet-${index}`,
          },
          { backoffMs: 200 },
        );
        expect(enqueued.added).toBe(true);
      }
      const victimStart = await Promise.any(
        workers.map((worker) => worker.waitFor((event) => event.type === "job-start" && event.job === "key-fleet-0").then(() => worker)),
      );
      // Mid-job: its agent is running (the marker exists) when the worker dies with everything it started.
      while (!existsSync(marker)) await new Promise((resolve) => setTimeout(resolve, 100));
      signalWorker(victimStart, "SIGKILL");
      await victimStart.exited;

      // Redis goes away and comes back while the others work: they reconnect, nothing is lost.
      await redis.server!.restart({ downMs: 1_000 });

      const survivors = workers.filter((worker) => worker !== victimStart);
      const deadline = Date.now() + 100_000;
      while ((await queue.queue.getJobCountByTypes("completed")) < JOBS) {
        if (Date.now() > deadline) {
          const failed = await queue.queue.getFailed();
          throw new Error(
            `only ${await queue.queue.getJobCountByTypes("completed")} of ${JOBS} completed; failed: ${failed.map((job) => `${job.id} ${job.failedReason}`).join("; ")}; stderr: ${survivors.map((worker) => worker.output()).join("\n")}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }

      // Exactly once: one BullMQ completion per job across the fleet, one committed result each.
      const completions = workers.flatMap((worker) => worker.events.filter((event) => event.type === "job-complete"));
      const perJob = new Map<string, number>();
      for (const event of completions) perJob.set(String(event.job), (perJob.get(String(event.job)) ?? 0) + 1);
      expect(perJob.size).toBe(JOBS);
      expect([...perJob.values()].every((count) => count === 1)).toBe(true);
      expect(await queue.queue.getJobCountByTypes("failed")).toBe(0);

      // The killed worker's job was finished by another worker.
      const zero = completions.find((event) => event.job === "key-fleet-0")!;
      expect(zero.worker).not.toBe(victimStart.name);

      const client = new S3Client(s3.server!.clientSettings());
      const results = s3Transport({ client, bucket });
      try {
        for (let index = 0; index < JOBS; index += 1) {
          const job = `key-fleet-${index}`;
          const key = await committedResultKey(queue.redis, "fleet", job);
          expect(key).toBeDefined();
          const record = JSON.parse(new TextDecoder().decode((await results.read(key!))!.bytes)) as StoredDispatchResult;
          expect(record.job).toBe(job);
          expect(record.commits).toHaveLength(1);
          // Every commit is on the remote, on the job's branch, holding the job's file.
          expect(git(remote, "rev-parse", `refs/heads/outpost/queue/${job}`)).toBe(record.commits[0]);
          expect(git(remote, "show", `${record.commits[0]}:file-${index}.txt`)).toBe(`file-${index}.txt`);
          expect(record.journal.map((line) => line.event)).toEqual(expect.arrayContaining(["checkout", "dispatch", "push", "store"]));
        }
        // Job 0 was attempted at least twice: the first attempt's token was fenced out.
        const zeroRecord = await committedResultKey(queue.redis, "fleet", "key-fleet-0");
        expect(zeroRecord).not.toMatch(/result-1\.json$/);
      } finally {
        client.destroy();
      }
    } finally {
      await queue.close();
    }
  });
});
