import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { S3Client } from "@aws-sdk/client-s3";
import { describeGated, redisGate, s3Gate } from "@outpost/testkit/gates";
import { s3Transport } from "@outpost/transport-s3";
import { committedResultKey, enqueueDispatch, openDispatchQueue, type StoredDispatchResult } from "../src/index.js";
import { bareRemote, git, signalWorker, startWorker, waitUntil, type WorkerProcess } from "./support/fleet.js";

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

// The issue asks for 50; each job is a real worktree of a cached clone, agent process, push and S3 write.
const JOBS = Number(process.env.OUTPOST_FLEET_JOBS ?? "50");

describeGated("a fleet of worker processes on a real Redis, S3 and a bare git remote", gated, () => {
  it("every job completes exactly once with its commit on the remote, through a Redis restart", async () => {
    const remote = bareRemote();
    const bucket = "fleet-results";
    await s3.server!.createBucket(bucket);
    const environment = {
      QUEUE_TEST_REDIS_URL: redis.server!.url,
      QUEUE_TEST_QUEUE: "fleet",
      QUEUE_TEST_S3_ENDPOINT: s3.server!.endpoint,
      QUEUE_TEST_BUCKET: bucket,
    };
    for (const name of ["w1", "w2", "w3"])
      workers.push(startWorker(name, { ...environment, QUEUE_TEST_CACHE: mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`)) }));
    await Promise.all(workers.map((worker) => worker.waitFor((event) => event.type === "ready")));

    const queue = openDispatchQueue({ url: redis.server!.url, name: "fleet" });
    try {
      for (let index = 0; index < JOBS; index += 1) {
        const job = {
          brief: `file-${index}.txt`,
          agent: { name: "shell" },
          provider: { name: "local" },
          repository: { url: remote, base: "main" },
          idempotencyKey: `fleet-${index}`,
        };
        expect((await enqueueDispatch(queue, job, { backoffMs: 200 })).added).toBe(true);
      }
      // Redis goes away and comes back while the workers are busy: they reconnect, nothing is lost.
      await waitUntil(async () => (await queue.queue.getJobCountByTypes("completed")) >= Math.min(5, JOBS), 90_000);
      await redis.server!.restart({ downMs: 1_000 });

      await waitUntil(
        async () => (await queue.queue.getJobCountByTypes("completed")) === JOBS,
        200_000,
        async () =>
          `${JSON.stringify(await queue.queue.getJobCounts())} of ${JOBS}; events: ${JSON.stringify(workers.map((worker) => worker.events.slice(-3)))}; failed: ${(
            await queue.queue.getFailed()
          )
            .map((job) => `${job.id} ${job.failedReason}`)
            .join("; ")}; output: ${workers.map((worker) => worker.output()).join("\n")}`,
      );

      // Exactly once: one BullMQ completion per job across the fleet, one committed result each.
      const completions = workers.flatMap((worker) => worker.events.filter((event) => event.type === "job-complete"));
      const perJob = new Map<string, number>();
      for (const event of completions) perJob.set(String(event.job), (perJob.get(String(event.job)) ?? 0) + 1);
      expect(perJob.size).toBe(JOBS);
      expect([...perJob.values()].every((count) => count === 1)).toBe(true);
      expect(await queue.queue.getJobCountByTypes("failed", "waiting", "active", "delayed")).toBe(0);
      // The work was shared: more than one worker completed jobs.
      expect(new Set(completions.map((event) => event.worker)).size).toBeGreaterThan(1);

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
          expect(record.journal.map((line) => line.event)).toEqual(expect.arrayContaining(["checkout", "dispatch", "store"]));
        }
        // The remote holds the jobs' branches and nothing else (no attempt pushes before its result is committed).
        expect(git(remote, "for-each-ref", "--format=%(refname)").split("\n")).toHaveLength(JOBS + 1);
      } finally {
        client.destroy();
      }
    } finally {
      await queue.close();
    }
  }, 300_000);
});
