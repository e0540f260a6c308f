import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { enqueueDispatch, openDispatchQueue } from "../src/index.js";
import { bareRemote, git, signalWorker, startWorker, waitUntil, type WorkerProcess } from "./support/fleet.js";

const redis = await redisGate();
const workers: WorkerProcess[] = [];
afterAll(async () => {
  for (const worker of workers) signalWorker(worker, "SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await redis.server?.stop();
});

const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));

describeGated("a worker killed during publication", redis, () => {
  it("is killed mid-push on a shared branch: the next worker publishes the committed result once, dropping nothing", async () => {
    const remote = bareRemote();
    // The remote holds every push to `feature` while `block` exists, after saying it was reached.
    const signals = temporary("signals");
    const [block, reached] = [join(signals, "block"), join(signals, "reached")];
    writeFileSync(block, "");
    const hook = join(remote, "hooks", "pre-receive");
    writeFileSync(hook, `#!/bin/sh\nif [ -e ${block} ]; then : > ${reached}; while [ -e ${block} ]; do sleep 0.1; done; fi\n`);
    chmodSync(hook, 0o755);
    const resultsDirectory = temporary("results");
    const environment = (cache: string) => ({
      QUEUE_TEST_REDIS_URL: redis.server!.url,
      QUEUE_TEST_QUEUE: "killed-publish",
      QUEUE_TEST_RESULTS_DIR: resultsDirectory,
      QUEUE_TEST_CACHE: cache,
      QUEUE_TEST_CONCURRENCY: "1",
      QUEUE_TEST_LOCK_MS: "3000",
      QUEUE_TEST_STALLED_MS: "1000",
    });
    const first = startWorker("p1", environment(temporary("p1")));
    workers.push(first);
    await first.waitFor((event) => event.type === "ready");
    const queue = openDispatchQueue({ url: redis.server!.url, name: "killed-publish" });
    try {
      const { id } = await enqueueDispatch(queue, {
        brief: "published.txt",
        agent: { name: "shell" },
        provider: { name: "local" },
        repository: { url: remote, base: "main", branch: "feature" },
      });
      await waitUntil(
        () => Promise.resolve(existsSync(reached)),
        90_000,
        async () => first.output(),
      );
      signalWorker(first, "SIGKILL");
      await first.exited;
      rmSync(block);
      expect(git(remote, "for-each-ref", "refs/heads/feature")).toBe("");
      const secondCache = temporary("p2");
      const second = startWorker("p2", environment(secondCache));
      workers.push(second);
      const done = await second.waitFor((event) => event.type === "job-complete" && event.job === id);
      expect(done).toMatchObject({ result: { worker: "p1", fence: 1, branch: "feature" } });
      const head = (done.result as { head: string }).head;
      expect(git(remote, "rev-parse", "refs/heads/feature")).toBe(head);
      expect(git(remote, "rev-parse", `${head}^`)).toBe(git(remote, "rev-parse", "main"));
      expect(git(remote, "show", `${head}:published.txt`)).toBe("published.txt");
      // Published from the stored bundle: the second worker's cache keeps no branch of the job.
      const clone = join(
        secondCache,
        readdirSync(secondCache).find((name) => existsSync(join(secondCache, name, ".git")))!,
      );
      expect(git(clone, "for-each-ref", "refs/heads/outpost/")).toBe("");
    } finally {
      await queue.close();
    }
  });
});
