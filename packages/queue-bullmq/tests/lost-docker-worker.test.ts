import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeGated, dockerGate, redisGate, TEST_IMAGE } from "@outpost/testkit/gates";
import { fsTransport } from "@outpost/transport-fs";
import { committedResultKey, enqueueDispatch, openDispatchQueue, type StoredDispatchResult } from "../src/index.js";
import { bareRemote, git, signalWorker, startWorker, waitUntil, type WorkerProcess } from "./support/fleet.js";

const redis = await redisGate();
const docker = redis.server ? await dockerGate({ images: [TEST_IMAGE] }) : {};
const gated = {
  ...(redis.unavailable ? { unavailable: redis.unavailable } : docker.unavailable ? { unavailable: docker.unavailable } : {}),
};
const workers: WorkerProcess[] = [];
// Containers made by this file's workers (by the owner pid the docker provider labels them with).
const containersOf = (pid: number): string[] =>
  execFileSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `label=dev.outpost.owner-pid=${pid}`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
const exists = (id: string) =>
  execFileSync("docker", ["ps", "-aq", "--no-trunc", "--filter", `id=${id}`], { encoding: "utf8" }).trim() !== "";
afterAll(async () => {
  for (const worker of workers) signalWorker(worker, "SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  const left = workers.flatMap((worker) => (worker.child.pid ? containersOf(worker.child.pid) : []));
  if (left.length > 0) execFileSync("docker", ["rm", "-f", ...left], { stdio: "ignore" });
  await redis.server?.stop();
});

const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));

describeGated("a worker killed mid-job on the Docker provider (real dockerd)", gated, () => {
  it("another worker takes the job over and removes the dead attempt's container; its worker reaps the rest when it comes back", async () => {
    const remote = bareRemote();
    const resultsDirectory = temporary("results");
    const caches = { w1: temporary("w1"), w2: temporary("w2") };
    const start = (name: "w1" | "w2") => {
      const worker = startWorker(name, {
        QUEUE_TEST_REDIS_URL: redis.server!.url,
        QUEUE_TEST_QUEUE: "lost-docker",
        QUEUE_TEST_RESULTS_DIR: resultsDirectory,
        QUEUE_TEST_CACHE: caches[name],
        QUEUE_TEST_CONCURRENCY: "1",
        QUEUE_TEST_LOCK_MS: "3000",
        QUEUE_TEST_STALLED_MS: "1000",
      });
      workers.push(worker);
      return worker;
    };
    const fleet = [start("w1"), start("w2")];
    await Promise.all(fleet.map((worker) => worker.waitFor((event) => event.type === "ready")));
    const queue = openDispatchQueue({ url: redis.server!.url, name: "lost-docker" });
    const results = fsTransport({ directory: resultsDirectory });
    try {
      // The marker folder is mounted into every attempt's container at the same path: only the first attempt
      // (the one that finds no marker) sleeps, and the marker tells the test its agent is running.
      const markers = temporary("marker");
      const marker = join(markers, "first-attempt");
      const { id } = await enqueueDispatch(
        queue,
        {
          brief: `docker.txt 120 ${marker}`,
          agent: { name: "shell" },
          provider: { name: "docker", options: { volume: [{ source: markers, target: markers }] } },
          repository: { url: remote, base: "main" },
        },
        { backoffMs: 100 },
      );
      const victim = await Promise.any(
        fleet.map((worker) => worker.waitFor((event) => event.type === "job-start" && event.job === id).then(() => worker)),
      );
      await waitUntil(() => Promise.resolve(existsSync(marker)), 90_000);
      expect(readFileSync(marker, "utf8").trim()).toMatch(/^\d+$/);
      const [container, ...others] = containersOf(victim.child.pid!);
      expect(others).toEqual([]);
      expect(container).toBeDefined();

      // kill -9: the worker process dies, its container (the agent asleep in it) lives on.
      signalWorker(victim, "SIGKILL");
      await victim.exited;
      await waitUntil(async () => (await queue.queue.getJob(id))?.finishedOn !== undefined, 120_000);
      const job = await queue.queue.getJob(id);
      expect(job?.failedReason).toBeUndefined();
      const key = await committedResultKey(queue.redis, "lost-docker", id);
      const rescued = JSON.parse(new TextDecoder().decode((await results.read(key!))!.bytes)) as StoredDispatchResult;
      expect(rescued.worker).not.toBe(victim.name);
      expect(rescued.fence).toBeGreaterThan(1);
      expect(git(remote, "rev-parse", `refs/heads/outpost/queue/${id}`)).toBe(rescued.commits[0]);
      expect(git(remote, "show", `${rescued.commits[0]}:docker.txt`)).toBe("docker.txt");
      // The attempt that took the job over removed the dead attempt's container (named in Redis), at once.
      expect(exists(container!)).toBe(false);
      expect(JSON.stringify(rescued.journal)).toMatch(new RegExp(`removed docker\\S* sandbox ${container!.slice(0, 12)} of fence 1`));

      // The killed worker comes back on its cache: it reaps the rest of its dead attempt (gone already counts as removed).
      const name = victim.name as "w1" | "w2";
      const restarted = start(name);
      const reaped = await restarted.waitFor((event) => event.type === "reaped");
      expect(JSON.stringify(reaped.actions)).toMatch(new RegExp(`remove docker\\S* sandbox ${container!.slice(0, 12)}`));
      await restarted.waitFor((event) => event.type === "ready");
      expect(exists(container!)).toBe(false);
      // The winner released its own container; nothing of this job runs any more.
      const winner = fleet.find((worker) => worker !== victim)!;
      expect(containersOf(winner.child.pid!)).toEqual([]);
    } finally {
      await queue.close();
    }
  }, 240_000);
});
