import { existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { listDispatches } from "@outpost/dispatch";
import { descriptor as localDescriptor } from "@outpost/provider-local";
import { fsTransport } from "@outpost/transport-fs";
import type { AgentDescriptor } from "@outpost/core";
import { enqueueDispatch, openDispatchQueue, runDispatchWorker, type DispatchJob, type DispatchQueue } from "../src/index.js";
import { bareRemote, git, waitUntil } from "./support/fleet.js";
import { shellAgentDescriptor } from "./support/shell-agent.js";

const gated = await redisGate();
afterAll(async () => {
  await gated.server?.stop();
});

const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));
const IDENTITY = ["-c", "user.name=Person", "-c", "user.email=person@outpost.invalid"];

// The shell agent, made to fail after its commit: it never reports that it finished.
const failingAgent: AgentDescriptor = {
  ...shellAgentDescriptor,
  name: "failing",
  createAgent: (options) => {
    const agent = shellAgentDescriptor.createAgent(options);
    if (agent.kind !== "cli") throw new Error("the shell agent is a CLI agent");
    return {
      ...agent,
      name: "failing",
      command: (turn) => {
        const command = agent.command(turn);
        return {
          ...command,
          arguments: [
            ...command.arguments.slice(0, 1),
            `${String(command.arguments[1]).split("\nprintf '")[0]}\nexit 3`,
            ...command.arguments.slice(2),
          ],
        };
      },
    };
  },
};

async function withWorker<T>(name: string, use: (queue: DispatchQueue, cache: string, results: string) => Promise<T>): Promise<T> {
  const queue = openDispatchQueue({ url: gated.server!.url, name });
  const [cache, results] = [temporary("cache"), temporary("results")];
  const worker = await runDispatchWorker({
    queue,
    plugins: [shellAgentDescriptor, failingAgent, localDescriptor],
    transports: { results: fsTransport({ directory: results }) },
    cacheDirectory: cache,
  });
  try {
    return await use(queue, cache, results);
  } finally {
    await worker.close();
    await queue.close();
  }
}

const job = (remote: string, brief: string, repository: Partial<DispatchJob["repository"]> = {}, agent = "shell"): DispatchJob => ({
  brief,
  agent: { name: agent },
  provider: { name: "local" },
  repository: { url: remote, base: "main", ...repository },
});

const finished = (queue: DispatchQueue, id: string) =>
  waitUntil(async () => (await queue.queue.getJob(id))?.finishedOn !== undefined, 90_000);

/** What the worker's cache holds of attempts: worktrees besides the clones, attempt branches, dispatch records. */
async function leftovers(cache: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of readdirSync(cache).filter((name) => existsSync(join(cache, name, ".git")))) {
    const clone = join(cache, entry);
    found.push(...git(clone, "worktree", "list", "--porcelain").split("\n\n").slice(1).filter(Boolean));
    found.push(...git(clone, "for-each-ref", "--format=%(refname)", "refs/heads/outpost/").split("\n").filter(Boolean));
    found.push(...(await listDispatches({ repository: clone })).map((entry) => `record ${entry.record.dispatchId}`));
  }
  return found;
}

describeGated("jobs on shared branches: compare-and-swap publication on a real Redis and git remote", gated, () => {
  it("two jobs on one branch: the second is refused while the first is unfinished, and later cannot drop its commit", async () => {
    const remote = bareRemote();
    await withWorker("two-jobs", async (queue) => {
      const signals = temporary("signals");
      const first = await enqueueDispatch(
        queue,
        job(remote, `first.txt 0 ${join(signals, "started")} ${join(signals, "gate")}`, { branch: "feature" }),
      );
      await expect(enqueueDispatch(queue, job(remote, "second.txt", { branch: "feature" }))).rejects.toMatchObject({
        code: "conflict",
        message: expect.stringMatching(new RegExp(`Job ${first.id} \\((waiting|active)\\) already publishes on branch feature`)),
      });
      writeFileSync(join(signals, "gate"), "");
      await finished(queue, first.id);
      const published = git(remote, "rev-parse", "refs/heads/feature");
      expect(git(remote, "show", `${published}:first.txt`)).toBe("first.txt");
      // Now the branch is free; the second job starts from main, so its publication is not a fast-forward.
      const second = await enqueueDispatch(queue, job(remote, "second.txt", { branch: "feature" }));
      await finished(queue, second.id);
      const failed = await queue.queue.getJob(second.id);
      expect(failed?.failedReason).toMatch(/\[conflict\] Job .* would drop 1 commit\(s\).*refs\/outpost\/kept\//);
      expect(git(remote, "rev-parse", "refs/heads/feature")).toBe(published);
      expect(git(remote, "show", `refs/outpost/kept/${second.id}:second.txt`)).toBe("second.txt");
    });
  });

  it("a person pushing to the branch during a job keeps their commit; the job fails with conflict, its commits kept", async () => {
    const remote = bareRemote();
    await withWorker("person-pushes", async (queue, cache) => {
      const signals = temporary("signals");
      const [marker, gate] = [join(signals, "started"), join(signals, "gate")];
      const { id } = await enqueueDispatch(queue, job(remote, `job.txt 0 ${marker} ${gate}`, { branch: "feature" }));
      await waitUntil(() => Promise.resolve(existsSync(marker)), 60_000);
      const person = temporary("person");
      git(person, "clone", "--quiet", remote, ".");
      writeFileSync(join(person, "mine.txt"), "mine\n");
      git(person, "add", "mine.txt");
      git(person, ...IDENTITY, "commit", "--quiet", "-m", "a person's commit");
      git(person, "push", "--quiet", "origin", "HEAD:refs/heads/feature");
      writeFileSync(gate, "");
      await finished(queue, id);
      expect((await queue.queue.getJob(id))?.failedReason).toMatch(/^\[conflict\].*branch feature would drop 1 commit/);
      expect(git(remote, "rev-parse", "refs/heads/feature")).toBe(git(person, "rev-parse", "HEAD"));
      expect(git(remote, "show", `refs/outpost/kept/${id}:job.txt`)).toBe("job.txt");
      await queue.queue.close();
      expect(await leftovers(cache)).toEqual([]);
    });
  });

  it("a job on main without opt-in is refused at enqueue and by the worker; with opt-in it moves main forward", async () => {
    const remote = bareRemote();
    await withWorker("protected", async (queue) => {
      await expect(enqueueDispatch(queue, job(remote, "x.txt", { branch: "main" }))).rejects.toMatchObject({
        code: "configuration",
        message: expect.stringMatching(/would publish on branch main, protected by the pattern "main".*publishProtected: true/),
      });
      // The queue's patterns left out: the worker still knows main is the remote's default branch.
      const { id } = await enqueueDispatch(queue, job(remote, "x.txt", { branch: "main" }), { protectedBranches: [] });
      await finished(queue, id);
      expect((await queue.queue.getJob(id))?.failedReason).toMatch(/^\[configuration\].*branch main, the remote's default branch/);
      const before = git(remote, "rev-parse", "main");
      const allowed = await enqueueDispatch(queue, job(remote, "y.txt", { branch: "main", publishProtected: true }));
      await finished(queue, allowed.id);
      expect(git(remote, "rev-parse", "main^")).toBe(before);
      expect(git(remote, "show", "main:y.txt")).toBe("y.txt");
    });
  });

  it("a failed attempt leaves nothing in the worker's cache; its commits are in the result transport, not a local path", async () => {
    const remote = bareRemote();
    await withWorker("failed-attempt", async (queue, cache, results) => {
      const { id } = await enqueueDispatch(queue, job(remote, "broken.txt", {}, "failing"), { attempts: 1 });
      await finished(queue, id);
      const reason = (await queue.queue.getJob(id))?.failedReason ?? "";
      expect(reason).toMatch(new RegExp(`commit\\(s\\) are kept in the result transport as failed-attempt/${id}/kept-1\\.bundle`));
      expect(reason).not.toContain(cache);
      expect(reason).not.toContain("outpost recover");
      expect(existsSync(join(results, "failed-attempt", id))).toBe(true);
      await queue.queue.close();
      expect(await leftovers(cache)).toEqual([]);
    });
  });
});
