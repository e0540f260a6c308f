import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { S3Client } from "@aws-sdk/client-s3";
import { enqueueDispatch, openDispatchQueue, type StoredDispatchResult } from "@outpost/queue-bullmq";
import { describeGated, MOTO_CREDENTIALS, redisGate, s3Gate } from "@outpost/testkit/gates";
import { startModelServer, writeFileStep, type ModelServer } from "@outpost/testkit/model-server";
import { s3Transport } from "@outpost/transport-s3";
import { bareRemote, git, runOutpost, startOutpostWorker, type OutpostWorker } from "./support/outpost-worker.js";

// Two `outpost worker` processes (as on two machines: own HOME, own clone cache) share Redis, S3 on moto and a
// bare git remote. The real Claude Code CLI talks to the scripted model server of this test.
const require = createRequire(import.meta.url);
const manifest = require.resolve("@anthropic-ai/claude-code/package.json");
const claudeBinary = join(dirname(manifest), (require(manifest) as { bin: { claude: string } }).bin.claude);

const redis = await redisGate();
const s3 = redis.server ? await s3Gate() : {};
const gated = { ...(redis.unavailable ? { unavailable: redis.unavailable } : s3.unavailable ? { unavailable: s3.unavailable } : {}) };
const workers: OutpostWorker[] = [];
let server: ModelServer | undefined;
afterAll(async () => {
  for (const worker of workers) worker.signal("SIGKILL");
  await Promise.all(workers.map((worker) => worker.exited));
  await server?.close();
  await redis.server?.stop();
  await s3.server?.stop();
});

const TURN1_MARKER = "MARKER_TURN1_DONE";

describeGated("a continuation on another worker (outpost worker processes, real Claude Code, S3 on moto)", gated, () => {
  it("job 1 commits on worker 1; its continuation runs on worker 2, sees turn 1's history and commits on the same branch", async () => {
    server = await startModelServer({
      script: [
        writeFileStep("hello.txt", "Hello from the first worker.\n"),
        {
          toolCall: {
            name: "Bash",
            arguments: { command: "git add hello.txt && git commit -q -m 'Add hello.txt'", description: "Commit" },
          },
        },
        { text: `I created hello.txt and committed it. ${TURN1_MARKER} <outpost>done</outpost>` },
        writeFileStep("second.txt", "Continued on the second worker.\n"),
        {
          toolCall: {
            name: "Bash",
            arguments: { command: "git add second.txt && git commit -q -m 'Add second.txt'", description: "Commit" },
          },
        },
        (request) => ({
          text: `Done (history_has_turn1=${request.transcript.includes(TURN1_MARKER)}). <outpost>done</outpost>`,
        }),
      ],
    });
    const remote = bareRemote();
    const bucket = "fleet-continuation";
    await s3.server!.createBucket(bucket);
    const results = `s3://${bucket}/team-a`;
    const environment = {
      OUTPOST_REDIS_URL: redis.server!.url,
      OUTPOST_QUEUE: "continue",
      OUTPOST_S3_ENDPOINT: s3.server!.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-test",
      OUTPOST_CLAUDE_EXECUTABLE: claudeBinary,
    };
    const start = (name: string) => {
      // The local provider runs the agent with the worker's home: each worker has its own, as on its own machine.
      const home = mkdtempSync(join(process.env.HOME ?? tmpdir(), `${name}-home-`));
      const worker = startOutpostWorker(name, ["--results", results, "--cache", mkdtempSync(join(tmpdir(), `${name}-cache-`))], {
        ...environment,
        HOME: home,
      });
      workers.push(worker);
      return worker;
    };
    const queue = openDispatchQueue({ url: redis.server!.url, name: "continue" });
    const client = new S3Client(s3.server!.clientSettings());
    const stored = s3Transport({ client, bucket, prefix: "team-a/" });
    const record = async (key: string) => JSON.parse(new TextDecoder().decode((await stored.read(key))!.bytes)) as StoredDispatchResult;
    try {
      // Job 1 on worker 1 alone; `outpost queue watch` follows it to its end.
      const first = start("worker-1");
      await first.waitFor((event) => event.type === "ready");
      const job1 = await enqueueDispatch(queue, {
        brief: "Create hello.txt and commit it.",
        agent: { name: "claude" },
        provider: { name: "local" },
        repository: { url: remote, base: "main" },
      });
      const watched = await runOutpost(["queue", "watch", job1.id, "--json"], environment);
      expect(watched.code, watched.stderr).toBe(0);
      const states = watched.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(states.at(-1)).toMatchObject({ type: "state", id: job1.id, state: "completed", result: { worker: "worker-1" } });
      expect(states.some((line) => line.type === "log" && /checkout|dispatch/.test(String(line.line)))).toBe(true);
      const result1 = await record((states.at(-1)!.result as { resultKey: string }).resultKey);
      expect(result1).toMatchObject({ worker: "worker-1", completed: true, conversation: { format: "claude", packed: true } });
      expect(result1.commits).toHaveLength(1);

      // Worker 1 leaves; the continuation can only run on worker 2, with nothing of worker 1's cache or home.
      first.signal("SIGTERM");
      expect(await first.exited).toBe(0);
      const second = start("worker-2");
      await second.waitFor((event) => event.type === "ready");
      const job2 = await enqueueDispatch(queue, {
        brief: "TURN2: what did you do? Then add second.txt and commit it.",
        agent: { name: "claude" },
        provider: { name: "local" },
        repository: { url: remote },
        continuation: { job: job1.id },
      });
      const done = await second.waitFor((event) => event.job === job2.id && (event.type === "job-complete" || event.type === "job-fail"));
      expect(done, JSON.stringify(done)).toMatchObject({ type: "job-complete", result: { worker: "worker-2" } });
      const result2 = await record((done.result as { resultKey: string }).resultKey);
      expect(result2).toMatchObject({
        worker: "worker-2",
        conversationId: result1.conversationId,
        continued: { job: job1.id, worker: "worker-1" },
        branch: result1.branch,
      });
      expect(result2.text).toContain("history_has_turn1=true");
      expect(result2.journal.map((line) => line.event)).toContain("continue");

      // The model server saw turn 1's history in turn 2's request.
      const turn2 = server.requests.filter((request) => request.kind === "turn" && request.body.includes("TURN2"));
      expect(turn2.length).toBeGreaterThan(0);
      expect(turn2[0]!.body).toContain(TURN1_MARKER);
      expect(server.problems).toEqual([]);

      // Both commits are on the remote branch, the continuation's on top of the first.
      expect(git(remote, "log", "--format=%s", result1.branch)).toBe("Add second.txt\nAdd hello.txt\nseed");
      expect(git(remote, "rev-parse", `refs/heads/${result1.branch}`)).toBe(result2.head);
      expect(git(remote, "for-each-ref", "refs/outpost/")).toBe("");

      // `outpost queue status` reports both jobs completed, nothing failed.
      const status = await runOutpost(["queue", "status", "--json"], environment);
      expect(status.code, status.stderr).toBe(0);
      expect(JSON.parse(status.stdout)).toMatchObject({ type: "queue", counts: { completed: 2, failed: 0, active: 0 } });
      second.signal("SIGTERM");
      expect(await second.exited).toBe(0);
    } finally {
      client.destroy();
      await queue.close();
    }
  }, 240_000);
});
