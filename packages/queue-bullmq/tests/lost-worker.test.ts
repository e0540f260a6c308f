import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { fsTransport } from "@outpost/transport-fs";
import { committedResultKey, enqueueDispatch, openDispatchQueue, type StoredDispatchResult } from "../src/index.js";
import { bareRemote, git, signalWorker, startWorker, waitUntil, type WorkerProcess } from "./support/fleet.js";

const redis = await redisGate();
const workers: WorkerProcess[] = [];
afterAll(async () => {
  for (const worker of workers) signalWorker(worker, "SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await redis.server?.stop();
});

const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describeGated("workers that die or stall mid-job", redis, () => {
  it("a killed worker's job is finished by another; a stalled one's late work is refused; leftovers are reaped", async () => {
    const remote = bareRemote();
    const resultsDirectory = temporary("results");
    const caches = { w1: temporary("w1"), w2: temporary("w2") };
    const environment = (name: "w1" | "w2") => ({
      QUEUE_TEST_REDIS_URL: redis.server!.url,
      QUEUE_TEST_QUEUE: "lost",
      QUEUE_TEST_RESULTS_DIR: resultsDirectory,
      QUEUE_TEST_CACHE: caches[name],
      QUEUE_TEST_CONCURRENCY: "1",
      QUEUE_TEST_LOCK_MS: "3000",
      QUEUE_TEST_STALLED_MS: "1000",
    });
    const start = (name: "w1" | "w2") => {
      const worker = startWorker(name, environment(name));
      workers.push(worker);
      return worker;
    };
    const fleet = { w1: start("w1"), w2: start("w2") };
    await Promise.all(Object.values(fleet).map((worker) => worker.waitFor((event) => event.type === "ready")));
    const queue = openDispatchQueue({ url: redis.server!.url, name: "lost" });
    const results = fsTransport({ directory: resultsDirectory });
    const enqueueSlow = async (name: string, seconds: number) => {
      const marker = join(temporary("marker"), "first-attempt");
      const { id } = await enqueueDispatch(
        queue,
        {
          brief: `${name}.txt ${seconds} ${marker}`,
          agent: { name: "shell" },
          provider: { name: "local" },
          repository: { url: remote, base: "main" },
        },
        { backoffMs: 100 },
      );
      // Whichever worker takes it is the victim; its agent is running once the marker exists.
      const victim = await Promise.any(
        workers.map((worker) => worker.waitFor((event) => event.type === "job-start" && event.job === id).then(() => worker)),
      );
      await waitUntil(() => Promise.resolve(existsSync(marker)), 60_000);
      return { id, victim, agentPid: Number(readFileSync(marker, "utf8").trim()) };
    };
    const completedBy = async (id: string) => {
      await waitUntil(async () => (await queue.queue.getJob(id))?.finishedOn !== undefined, 90_000);
      const job = await queue.queue.getJob(id);
      expect(job?.failedReason).toBeUndefined();
      const key = await committedResultKey(queue.redis, "lost", id);
      return JSON.parse(new TextDecoder().decode((await results.read(key!))!.bytes)) as StoredDispatchResult;
    };
    try {
      // 1. kill -9 mid-job: the job's lock expires, the other worker redoes it and publishes it.
      const killed = await enqueueSlow("killed", 60);
      signalWorker(killed.victim, "SIGKILL");
      await killed.victim.exited;
      const rescued = await completedBy(killed.id);
      expect(rescued.worker).not.toBe(killed.victim.name);
      expect(rescued.fence).toBeGreaterThan(1);
      expect(git(remote, "rev-parse", `refs/heads/outpost/queue/${killed.id}`)).toBe(rescued.commits[0]);
      // Its agent outlived it (an agent runs in its own session) until the worker restarts on its cache.
      expect(alive(killed.agentPid)).toBe(true);
      const victimName = killed.victim.name as "w1" | "w2";
      const restarted = start(victimName);
      fleet[victimName] = restarted;
      const reaped = await restarted.waitFor((event) => event.type === "reaped");
      expect(JSON.stringify(reaped.actions)).toMatch(/orphaned agent/);
      await waitUntil(() => Promise.resolve(!alive(killed.agentPid)), 20_000);
      const clone = join(caches[victimName], readdirSync(caches[victimName])[0]!);
      expect(git(clone, "worktree", "list", "--porcelain").match(/^worktree /gm)).toHaveLength(1);
      expect(git(clone, "for-each-ref", "refs/heads/outpost/")).toBe("");
      await restarted.waitFor((event) => event.type === "ready");

      // 2. A stalled worker (SIGSTOP) loses its job; woken up, whatever it tries to publish is refused.
      const stalled = await enqueueSlow("stalled", 3);
      signalWorker(stalled.victim, "SIGSTOP");
      const winner = await completedBy(stalled.id);
      expect(winner.worker).not.toBe(stalled.victim.name);
      signalWorker(stalled.victim, "SIGCONT");
      const refused = await stalled.victim.waitFor((event) => event.type === "job-fail" && event.job === stalled.id);
      expect(["conflict", "aborted"]).toContain(refused.code);
      expect(refused.retry).toBe(false);
      // The winner's work stands: its branch, its one result; nothing of the stale attempt is left.
      expect(git(remote, "rev-parse", `refs/heads/outpost/queue/${stalled.id}`)).toBe(winner.commits[0]);
      expect(await committedResultKey(queue.redis, "lost", stalled.id)).toBe(winner.resultKey);
      const stored: string[] = [];
      for await (const entry of results.list(`lost/${stalled.id}/`)) stored.push(entry.key);
      expect(stored.sort()).toEqual([winner.bundle!.key, winner.resultKey].sort());
      // The remote holds the jobs' branches and nothing else: no attempt pushes before its result is committed.
      expect(git(remote, "for-each-ref", "--format=%(refname)").split("\n").sort()).toEqual(
        ["refs/heads/main", `refs/heads/outpost/queue/${killed.id}`, `refs/heads/outpost/queue/${stalled.id}`].sort(),
      );
      const completions = workers.flatMap((worker) => worker.events.filter((event) => event.type === "job-complete"));
      expect(completions.filter((event) => event.job === stalled.id)).toHaveLength(1);
      expect(completions.filter((event) => event.job === killed.id)).toHaveLength(1);
    } finally {
      await queue.close();
    }
  }, 300_000);
});
