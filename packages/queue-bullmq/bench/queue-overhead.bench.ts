// Queue overhead: the same trivial dispatches (a shell agent committing one file) run by 3 worker processes
// through BullMQ on a real Redis, against 3 local processes running them directly. Prints wall times, jobs/s
// and the ratio (the issue's target: queued ≤ 1.2× direct). Asserts nothing. BENCH_JOBS (default 200).
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { usePrivateTmpdir } from "@outpost/testkit/bench";
import { startRedisServer } from "@outpost/testkit/gates";
import { enqueueDispatch, openDispatchQueue } from "@outpost/queue-bullmq";
import { bareRemote, signalWorker, startWorker, waitUntil, type WorkerProcess } from "../tests/support/fleet.js";

// Clones, caches, remotes and results of both sides (hundreds of folders) go in one root, removed at exit.
usePrivateTmpdir("outpost-queue-bench-");
const JOBS = Number(process.env.BENCH_JOBS ?? "200");
const PROCESSES = 3;
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "../../..");
const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-bench-${name}-`));

function runDirect(remote: string, from: number, to: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", join(here, "direct-process.ts")], {
      cwd: root,
      env: { ...process.env, BENCH_REMOTE: remote, BENCH_CACHE: temporary("direct"), BENCH_FROM: String(from), BENCH_TO: String(to) },
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`a direct process exited with ${code}`))));
  });
}

const shares = Array.from({ length: PROCESSES }, (_, index) => [
  Math.floor((index * JOBS) / PROCESSES),
  Math.floor(((index + 1) * JOBS) / PROCESSES),
]);

// Direct: process start included, as for the workers below (whose start is excluded: they wait for jobs).
// One empty run first fills tsx's compile cache (it lives in TMPDIR, this run's own), as the workers' start does.
const directRemote = bareRemote();
await runDirect(directRemote, 0, 0);
const directStarted = performance.now();
await Promise.all(shares.map(([from, to]) => runDirect(directRemote, from!, to!)));
const directMs = performance.now() - directStarted;

const redis = await startRedisServer();
const workers: WorkerProcess[] = [];
try {
  const remote = bareRemote();
  const results = temporary("results");
  for (const name of ["b1", "b2", "b3"])
    workers.push(
      startWorker(
        name,
        {
          QUEUE_TEST_REDIS_URL: redis.url,
          QUEUE_TEST_QUEUE: "bench",
          QUEUE_TEST_RESULTS_DIR: results,
          QUEUE_TEST_CACHE: temporary(name),
          QUEUE_TEST_CONCURRENCY: "1",
          QUEUE_TEST_LOCK_MS: "30000",
          QUEUE_TEST_STALLED_MS: "30000",
        },
        // The workers run the built packages, as the bench measures what ships.
        { built: true },
      ),
    );
  await Promise.all(workers.map((worker) => worker.waitFor((event) => event.type === "ready", 120_000)));
  const queue = openDispatchQueue({ url: redis.url, name: "bench" });
  try {
    // Enqueue → worker start → completion recorded, for every job.
    const queuedStarted = performance.now();
    for (let index = 0; index < JOBS; index += 1)
      await enqueueDispatch(queue, {
        brief: `file-${index}.txt`,
        agent: { name: "shell" },
        provider: { name: "local" },
        repository: { url: remote, base: "main" },
      });
    await waitUntil(async () => (await queue.queue.getJobCountByTypes("completed")) === JOBS, 30 * 60_000);
    const queuedMs = performance.now() - queuedStarted;
    const failed = await queue.queue.getJobCountByTypes("failed");
    const line = (what: string, ms: number) =>
      `${what.padEnd(30)} ${(ms / 1000).toFixed(1).padStart(7)} s  ${(JOBS / (ms / 1000)).toFixed(2).padStart(7)} jobs/s  ${(ms / JOBS).toFixed(0).padStart(6)} ms/job`;
    console.log(`${JOBS} trivial dispatches, ${PROCESSES} processes${failed > 0 ? ` (${failed} FAILED)` : ""}`);
    console.log(line("direct (3 local processes)", directMs));
    console.log(line("queued (3 BullMQ workers)", queuedMs));
    console.log(
      `ratio queued/direct: ${(queuedMs / directMs).toFixed(2)}x (target ≤ 1.2x; ${queuedMs.toFixed(0)} ms against ${directMs.toFixed(0)} ms)`,
    );
  } finally {
    await queue.close();
  }
} finally {
  for (const worker of workers) signalWorker(worker, "SIGTERM");
  await Promise.all(workers.map((worker) => worker.exited));
  await redis.stop();
}
