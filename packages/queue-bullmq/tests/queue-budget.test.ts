import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { describeGated, redisGate } from "@outpost/testkit/gates";
import { descriptor as localDescriptor } from "@outpost/provider-local";
import { fsTransport } from "@outpost/transport-fs";
import { enqueueDispatch, openDispatchQueue, queueSpending, runDispatchWorker, type DispatchWorkerEvent } from "../src/index.js";
import { bareRemote, waitUntil } from "./support/fleet.js";
import { pricedShellAgentDescriptor } from "./support/priced-shell-agent.js";

const gated = await redisGate();
afterAll(async () => {
  await gated.server?.stop();
});

const temporary = (name: string) => mkdtempSync(join(tmpdir(), `outpost-queue-${name}-`));
// Each job is one turn of 10 input and 5 output tokens: 2 USD at these prices.
const pricing = { models: { "*": { input: 100_000, output: 200_000 } } };

describeGated("the queue's budget on a real Redis", gated, () => {
  it("every job's turns are charged to the queue; once its budget is spent, the next job fails with code limit, not retried", async () => {
    const remote = bareRemote();
    const queue = openDispatchQueue({ url: gated.server!.url, name: "budgeted" });
    const events: DispatchWorkerEvent[] = [];
    const worker = await runDispatchWorker({
      queue,
      name: "priced",
      plugins: [pricedShellAgentDescriptor, localDescriptor],
      transports: { results: fsTransport({ directory: temporary("results") }) },
      cacheDirectory: temporary("cache"),
      pricing,
      budgetUsd: 3,
      onEvent: (event) => events.push(event),
    });
    try {
      for (let index = 0; index < 3; index += 1)
        await enqueueDispatch(queue, {
          brief: `file-${index}.txt`,
          agent: { name: "priced-shell" },
          provider: { name: "local" },
          repository: { url: remote, base: "main" },
        });
      await waitUntil(
        async () => events.filter((event) => event.type === "job-complete" || event.type === "job-fail").length === 3,
        90_000,
        async () => JSON.stringify(events),
      );
      // One at a time: 2 USD (under 3), then 4 USD (the second job started under 3), then no turn for the third.
      expect(events.filter((event) => event.type === "job-complete")).toHaveLength(2);
      const failed = events.filter((event) => event.type === "job-fail");
      expect(failed).toEqual([expect.objectContaining({ code: "limit", retry: false })]);
      expect(failed[0]).toMatchObject({ message: expect.stringContaining("queue budgeted") });
      expect(await queueSpending(queue.redis, "budgeted")).toBe(4);
    } finally {
      await worker.close();
      await queue.close();
    }
  }, 120_000);

  it("a budget without prices is refused when the worker starts (code configuration)", async () => {
    const queue = openDispatchQueue({ url: gated.server!.url, name: "unpriced" });
    try {
      await expect(
        runDispatchWorker({ queue, plugins: [], transports: {}, cacheDirectory: temporary("cache"), budgetUsd: 1 }),
      ).rejects.toMatchObject({ code: "configuration" });
    } finally {
      await queue.close();
    }
  }, 30_000);
});
