import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { descriptor as localDescriptor } from "@outpost/provider-local";
import { fsTransport } from "@outpost/transport-fs";
import {
  acquireFence,
  committedResultKey,
  enqueueDispatch,
  openDispatchQueue,
  queueStatus,
  runDispatchWorker,
  watchJob,
  type DispatchWorkerEvent,
  type StoredDispatchResult,
} from "../src/index.js";
import { bareRemote, git, waitUntil } from "./support/fleet.js";
import { shellAgentDescriptor } from "./support/shell-agent.js";

const gated = await redisGate();
afterAll(async () => {
  await gated.server?.stop();
});

const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));

describeGated("runDispatchWorker on a real Redis and a bare git remote", gated, () => {
  it("runs each job once: the agent's commit is pushed to the job's branch and the result stored", async () => {
    const remote = bareRemote();
    const results = fsTransport({ directory: temporary("results") });
    const queue = openDispatchQueue({ url: gated.server!.url, name: "small" });
    const events: DispatchWorkerEvent[] = [];
    const cache = temporary("cache");
    const worker = await runDispatchWorker({
      queue,
      name: "solo",
      plugins: [shellAgentDescriptor, localDescriptor],
      transports: { results },
      cacheDirectory: cache,
      concurrency: 2,
      onEvent: (event) => events.push(event),
    });
    try {
      const ids: string[] = [];
      for (let index = 0; index < 4; index += 1) {
        const enqueued = await enqueueDispatch(queue, {
          brief: `file-${index}.txt`,
          agent: { name: "shell" },
          provider: { name: "local" },
          repository: { url: remote, base: "main" },
        });
        ids.push(enqueued.id);
      }
      await waitUntil(
        async () => (await queue.queue.getJobCountByTypes("completed")) === ids.length,
        90_000,
        async () => JSON.stringify(events),
      );
      for (const [index, id] of ids.entries()) {
        const key = await committedResultKey(queue.redis, "small", id);
        // A second attempt here means the first failed: its journal says why.
        const journal = key?.endsWith("result-1.json") ? undefined : JSON.stringify((await queue.queue.getJobLogs(id)).logs);
        expect(key, journal).toBe(`small/${id}/result-1.json`);
        const record = JSON.parse(new TextDecoder().decode((await results.read(key!))!.bytes)) as StoredDispatchResult;
        expect(record).toMatchObject({ job: id, worker: "solo", fence: 1, completed: true, branch: `outpost/queue/${id}` });
        expect(record.commits).toHaveLength(1);
        // The commits are kept beside the record, so any worker could publish them.
        expect(record.bundle).toEqual({ key: `small/${id}/commits-1.bundle`, ref: `refs/heads/outpost/queue/${id}/1` });
        expect((await results.read(record.bundle!.key))?.bytes.byteLength).toBeGreaterThan(0);
        expect(git(remote, "rev-parse", `refs/heads/outpost/queue/${id}`)).toBe(record.commits[0]);
        expect(git(remote, "show", `${record.commits[0]}:file-${index}.txt`)).toBe(`file-${index}.txt`);
        expect(git(remote, "rev-parse", `${record.commits[0]}^`)).toBe(git(remote, "rev-parse", "main"));
        expect(record.journal.map((line) => line.event)).toEqual(expect.arrayContaining(["checkout", "dispatch", "store"]));
        const job = await queue.queue.getJob(id);
        expect(job?.returnvalue).toMatchObject({ resultKey: key, commits: record.commits });
        expect(job?.progress).toMatchObject({ phase: "done", worker: "solo", fence: 1 });
      }
      // What `outpost queue status|watch` show: counts, and a finished job's journal and outcome.
      expect((await queueStatus(queue)).counts).toMatchObject({ completed: ids.length, active: 0, failed: 0 });
      const lines: string[] = [];
      const watched = await watchJob(queue, ids[0]!, (update) => lines.push(update.type === "log" ? update.line : update.status.state));
      expect(watched).toMatchObject({ state: "completed", result: { branch: `outpost/queue/${ids[0]}`, worker: "solo" } });
      expect(lines.join("\n")).toMatch(/dispatch fence 1[\s\S]*publish[\s\S]*completed/);
      const completions = events.filter((event) => event.type === "job-complete").map((event) => event.job);
      expect(completions.sort()).toEqual([...ids].sort());
      // Nothing but the jobs' branches reached the remote.
      expect(git(remote, "for-each-ref", "--format=%(refname)")).toBe(
        ["refs/heads/main", ...ids.map((id) => `refs/heads/outpost/queue/${id}`)].sort().join("\n"),
      );
      // The worker's local branches of finished attempts are gone (tidied by the time it closed).
      await worker.close();
      const clones = readdirSync(cache);
      expect(clones).toHaveLength(1);
      expect(git(join(cache, clones[0]!), "branch", "--list", "outpost/queue/*")).toBe("");
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("fails a configuration error at once, without retries, naming what is wrong", async () => {
    const remote = bareRemote();
    const queue = openDispatchQueue({ url: gated.server!.url, name: "misconfigured" });
    const worker = await runDispatchWorker({
      queue,
      plugins: [shellAgentDescriptor, localDescriptor],
      transports: { results: fsTransport({ directory: temporary("results") }) },
      cacheDirectory: temporary("cache"),
    });
    try {
      const { id } = await enqueueDispatch(
        queue,
        { brief: "file.txt", agent: { name: "codex" }, provider: { name: "local" }, repository: { url: remote } },
        { attempts: 5, backoffMs: 10 },
      );
      await waitUntil(async () => (await queue.queue.getJobCountByTypes("failed")) === 1, 60_000);
      const job = await queue.queue.getJob(id);
      expect(job?.attemptsMade).toBe(1);
      expect(job?.failedReason).toMatch(/\[configuration\].*no agent "codex"; it has: shell/);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("refuses a continuation at once: of a job without a result (configuration), of one that stored no conversation (session)", async () => {
    const remote = bareRemote();
    const queue = openDispatchQueue({ url: gated.server!.url, name: "continuations" });
    const worker = await runDispatchWorker({
      queue,
      plugins: [shellAgentDescriptor, localDescriptor],
      transports: { results: fsTransport({ directory: temporary("results") }) },
      cacheDirectory: temporary("cache"),
    });
    const job = { brief: "file.txt", agent: { name: "shell" }, provider: { name: "local" }, repository: { url: remote, base: "main" } };
    const finished = async (id: string) => {
      await waitUntil(async () => (await queue.queue.getJob(id))?.finishedOn !== undefined, 60_000);
      return (await queue.queue.getJob(id))!;
    };
    try {
      const unknown = await enqueueDispatch(queue, { ...job, continuation: { job: "never-ran" } }, { attempts: 5, backoffMs: 10 });
      expect(await finished(unknown.id)).toMatchObject({ attemptsMade: 1 });
      expect((await finished(unknown.id)).failedReason).toMatch(
        /^\[configuration\] .*continues job never-ran, which has no recorded result/,
      );
      // The shell agent keeps no conversation: there is nothing to continue.
      const first = await enqueueDispatch(queue, job);
      expect((await finished(first.id)).returnvalue).toMatchObject({ commits: [expect.any(String)] });
      const second = await enqueueDispatch(queue, { ...job, continuation: { job: first.id } }, { attempts: 5, backoffMs: 10 });
      const refused = await finished(second.id);
      expect(refused.attemptsMade).toBe(1);
      expect(refused.failedReason).toMatch(/^\[session\] .*stored no restorable conversation/);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("an attempt that lost its fence mid-job pushes nothing to the branch and leaves no result", async () => {
    const remote = bareRemote();
    const resultsDirectory = temporary("results");
    const queue = openDispatchQueue({ url: gated.server!.url, name: "fenced-out" });
    const events: DispatchWorkerEvent[] = [];
    const worker = await runDispatchWorker({
      queue,
      plugins: [shellAgentDescriptor, localDescriptor],
      transports: { results: fsTransport({ directory: resultsDirectory }) },
      cacheDirectory: temporary("cache"),
      onEvent: (event) => events.push(event),
    });
    try {
      const signals = temporary("signals");
      const [marker, gate] = [join(signals, "started"), join(signals, "gate")];
      const { id } = await enqueueDispatch(queue, {
        brief: `late.txt 0 ${marker} ${gate}`,
        agent: { name: "shell" },
        provider: { name: "local" },
        repository: { url: remote, base: "main" },
      });
      await waitUntil(() => Promise.resolve(existsSync(marker)), 60_000);
      // Another worker takes the job over (as after this one's lock expired): it holds the newer token.
      const takeover = await acquireFence(queue.redis, "fenced-out", id);
      expect(takeover.token).toBe(2);
      writeFileSync(gate, "");
      await waitUntil(async () => (await queue.queue.getJob(id))?.finishedOn !== undefined, 60_000);
      const failure = events.find((event) => event.type === "job-fail");
      expect(failure).toMatchObject({ job: id, code: "conflict", retry: false });
      expect(failure?.type === "job-fail" && failure.message).toMatch(/fence 1.*taken over.*fence 2/);
      expect(git(remote, "for-each-ref", "refs/heads/outpost/", "refs/outpost/")).toBe("");
      expect(await committedResultKey(queue.redis, "fenced-out", id)).toBeUndefined();
      expect(readdirSync(resultsDirectory)).toEqual([]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });

  it("a result committed by an attempt that died before publishing is published by the next attempt, not redone", async () => {
    const remote = bareRemote();
    const results = fsTransport({ directory: temporary("results") });
    const queue = openDispatchQueue({ url: gated.server!.url, name: "resume" });
    const id = "key-resumed";
    // The dead attempt (fence 1): its commit made in a clone no other worker sees, kept as a bundle beside its
    // record, both stored and committed; the branch was never pushed.
    const side = temporary("side");
    git(side, "clone", "--quiet", remote, ".");
    writeFileSync(join(side, "parked.txt"), "parked\n");
    git(side, "add", "parked.txt");
    git(side, "-c", "user.name=Dead", "-c", "user.email=dead@outpost.invalid", "commit", "--quiet", "-m", "dead attempt's work");
    const head = git(side, "rev-parse", "HEAD");
    const bundleRef = `refs/heads/outpost/queue/${id}/1`;
    git(side, "branch", `outpost/queue/${id}/1`);
    git(side, "bundle", "create", "--quiet", join(side, "commits.bundle"), "^origin/main", bundleRef);
    const bundle = { key: `resume/${id}/commits-1.bundle`, ref: bundleRef };
    await results.write(bundle.key, readFileSync(join(side, "commits.bundle")), { ifRevision: null });
    const fence = await acquireFence(queue.redis, "resume", id);
    const resultKey = `resume/${id}/result-1.json`;
    const record = {
      dispatchId: "dead-dispatch",
      branch: `outpost/queue/${id}`,
      head,
      commits: [head],
      completed: true,
      text: "done",
      resultKey,
      fence: fence.token,
      worker: "dead-worker",
      job: id,
      bundle,
      turns: [],
      journal: [],
      durationMs: 1,
    };
    await results.write(resultKey, new TextEncoder().encode(JSON.stringify(record)), { ifRevision: null });
    await fence.commit(resultKey);

    const worker = await runDispatchWorker({
      queue,
      plugins: [shellAgentDescriptor, localDescriptor],
      transports: { results },
      cacheDirectory: temporary("cache"),
    });
    try {
      await enqueueDispatch(queue, {
        brief: "never-run.txt",
        agent: { name: "shell" },
        provider: { name: "local" },
        repository: { url: remote, base: "main" },
        idempotencyKey: "resumed",
      });
      await waitUntil(async () => (await queue.queue.getJob(id))?.finishedOn !== undefined, 60_000);
      const job = await queue.queue.getJob(id);
      expect(job?.returnvalue).toMatchObject({ worker: "dead-worker", fence: 1, head, resultKey });
      expect(git(remote, "rev-parse", `refs/heads/outpost/queue/${id}`)).toBe(head);
      expect(git(remote, "show", `${head}:parked.txt`)).toBe("parked");
      // The work was not redone: no attempt of this worker wrote a record.
      const stored: string[] = [];
      for await (const entry of results.list(`resume/${id}/`)) stored.push(entry.key);
      expect(stored.sort()).toEqual([bundle.key, resultKey]);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
