import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { enqueueDispatch, openDispatchQueue, type StoredDispatchResult } from "@outpost/queue-bullmq";
import { describeGated, MOTO_CREDENTIALS, redisGate, s3Gate } from "@outpost/testkit/gates";
import { startModelServer, type ModelServer } from "@outpost/testkit/model-server";
import { descriptor as s3Descriptor } from "@outpost/transport-s3";
import { afterAll, expect, it } from "vitest";
import { commitResponder } from "./support/commit-responder.js";
import { claudeExecutable, git } from "./support/installed.js";
import { bareRemote, startOutpostWorker, type OutpostWorker } from "./support/outpost-worker.js";

// The installed `outpost worker` (queue-bullmq) on a real redis-server, results in S3 (moto) through transport-s3.
// Fails instead of skipping under OUTPOST_REQUIRE_REDIS=1 / OUTPOST_REQUIRE_S3=1.
const redis = await redisGate();
const s3 = redis.server ? await s3Gate() : {};
const gated = redis.unavailable ? { unavailable: redis.unavailable } : s3.unavailable ? { unavailable: s3.unavailable } : {};
let worker: OutpostWorker | undefined;
let server: ModelServer | undefined;
afterAll(async () => {
  worker?.signal("SIGKILL");
  await worker?.exited;
  await server?.close();
  await redis.server?.stop();
  await s3.server?.stop();
});

describeGated("outpost worker runs two queued dispatches (real Redis, real Claude Code)", gated, () => {
  it("job 1 commits on a branch of the remote; job 2 continues its conversation and commits on top", async () => {
    server = await startModelServer({ responder: commitResponder() });
    const remote = bareRemote();
    await s3.server!.createBucket("consumer-results");
    const environment = {
      OUTPOST_REDIS_URL: redis.server!.url,
      OUTPOST_QUEUE: "consumer",
      OUTPOST_S3_ENDPOINT: s3.server!.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: MOTO_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: MOTO_CREDENTIALS.secretAccessKey,
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: "sk-ant-consumer",
      OUTPOST_CLAUDE_EXECUTABLE: claudeExecutable(),
      HOME: mkdtempSync(join(tmpdir(), "outpost-consumer-worker-home-")),
    };
    // The transport-s3 descriptor reads its endpoint and credentials from the environment, as the worker does.
    for (const name of ["OUTPOST_S3_ENDPOINT", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] as const)
      process.env[name] = environment[name];
    const results = s3Descriptor.createTransport("consumer-results/fleet");
    const record = async (key: string) => JSON.parse(new TextDecoder().decode((await results.read(key))!.bytes)) as StoredDispatchResult;
    worker = startOutpostWorker(
      [
        "--name",
        "consumer-worker",
        "--results",
        "s3://consumer-results/fleet",
        "--cache",
        mkdtempSync(join(tmpdir(), "outpost-consumer-cache-")),
      ],
      environment,
    );
    await worker.waitFor((event) => event.type === "ready");
    const queue = openDispatchQueue({ url: redis.server!.url, name: "consumer" });
    try {
      const finished = (id: string) =>
        worker!.waitFor((event) => event.job === id && (event.type === "job-complete" || event.type === "job-fail"));
      const job1 = await enqueueDispatch(queue, {
        brief: "create and commit FILE=first.txt",
        agent: { name: "claude" },
        provider: { name: "local" },
        repository: { url: remote, base: "main" },
      });
      const done1 = await finished(job1.id);
      expect(done1, JSON.stringify(done1)).toMatchObject({ type: "job-complete" });
      const result1 = await record((done1.result as { resultKey: string }).resultKey);
      expect(result1).toMatchObject({ completed: true, conversation: { format: "claude" } });
      expect(result1.commits).toHaveLength(1);

      const job2 = await enqueueDispatch(queue, {
        brief: "TURN2: what did you do before? Then create and commit FILE=second.txt",
        agent: { name: "claude" },
        provider: { name: "local" },
        repository: { url: remote },
        continuation: { job: job1.id },
      });
      const done2 = await finished(job2.id);
      expect(done2, JSON.stringify(done2)).toMatchObject({ type: "job-complete" });
      const result2 = await record((done2.result as { resultKey: string }).resultKey);
      expect(result2).toMatchObject({ conversationId: result1.conversationId, branch: result1.branch });
      expect(result2.text).toContain("history_has_turn1=true");
      expect(git(remote, "log", "--format=%s", result1.branch)).toBe("Add second.txt\nAdd first.txt\nseed");
      expect(server.problems).toEqual([]);
      worker.signal("SIGTERM");
      expect(await worker.exited).toBe(0);
    } finally {
      await queue.close();
    }
  });
});
