import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { descriptor as localDescriptor } from "@outpost/provider-local";
import { fsTransport } from "@outpost/transport-fs";
import { enqueueDispatch, openDispatchQueue, runDispatchWorker, type DispatchWorkerEvent } from "../src/index.js";
import { bareRemote, git, waitUntil } from "./support/fleet.js";
import { shellAgentDescriptor } from "./support/shell-agent.js";

const gated = await redisGate();
afterAll(async () => {
  await gated.server?.stop();
});

const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));

describeGated("a job's guard on a real Redis", gated, () => {
  it("the job's work touches a protected path: the job fails with code guard, not retried, and nothing is published", async () => {
    const remote = bareRemote();
    const queue = openDispatchQueue({ url: gated.server!.url, name: "guarded" });
    const events: DispatchWorkerEvent[] = [];
    const worker = await runDispatchWorker({
      queue,
      plugins: [shellAgentDescriptor, localDescriptor],
      transports: { results: fsTransport({ directory: temporary("results") }) },
      cacheDirectory: temporary("cache"),
      onEvent: (event) => events.push(event),
    });
    try {
      const { id } = await enqueueDispatch(queue, {
        brief: "deploy.lock",
        agent: { name: "shell" },
        provider: { name: "local" },
        repository: { url: remote, base: "main" },
        guard: { protectedPaths: ["*.lock"] },
        watchdog: { repeatedToolCalls: 10, action: "warn" },
      });
      await waitUntil(
        async () => events.some((event) => event.type === "job-fail"),
        60_000,
        async () => JSON.stringify(events),
      );
      expect(events.find((event) => event.type === "job-fail")).toMatchObject({ job: id, code: "guard", retry: false });
      expect(git(remote, "for-each-ref", "--format=%(refname)", "refs/heads/outpost")).toBe("");
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 90_000);

  it("refuses a job whose guard is not an object or whose watchdog would steer (code configuration)", async () => {
    const queue = openDispatchQueue({ url: gated.server!.url, name: "refused" });
    const job = { brief: "x", agent: { name: "shell" }, provider: { name: "local" }, repository: { url: "/nowhere" } };
    try {
      await expect(enqueueDispatch(queue, { ...job, guard: [".github"] as never })).rejects.toMatchObject({ code: "configuration" });
      await expect(enqueueDispatch(queue, { ...job, watchdog: { action: "steer" } as never })).rejects.toMatchObject({
        code: "configuration",
      });
    } finally {
      await queue.close();
    }
  }, 30_000);
});
