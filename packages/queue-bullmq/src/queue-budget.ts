import type { Redis } from "ioredis";
import { OutpostError } from "@outpost/core";
import type { BudgetLedger, Pricing } from "@outpost/dispatch";

/** Where a queue's spending lives: one float per queue, shared by every worker. */
export function queueSpendingKey(queueName: string): string {
  return `outpost:{${queueName}}:spent-usd`;
}

/**
 * The queue's budget as a dispatch ledger: every turn of every job (any worker) is charged to one Redis counter
 * (INCRBYFLOAT, atomic), and a turn starts only while the counter is below `budgetUsd`. Jobs running at once may
 * each finish the turn they started, so the spending can pass the budget by what those turns cost.
 */
export function queueLedger(redis: Redis, queueName: string, budgetUsd: number): BudgetLedger {
  const key = queueSpendingKey(queueName);
  return {
    name: `queue ${queueName}`,
    budgetUsd,
    spent: async () => Number((await redis.get(key)) ?? 0),
    add: async (usd) => {
      await redis.incrbyfloat(key, usd);
    },
  };
}

/** What the queue's jobs spent so far, in US dollars (0 before any priced turn). */
export async function queueSpending(redis: Redis, queueName: string): Promise<number> {
  return Number((await redis.get(queueSpendingKey(queueName))) ?? 0);
}

/** The pricing every job of a worker runs with: the worker's table, and the queue's ledger with `budgetUsd`. */
export function workerPricing(
  redis: Redis,
  queueName: string,
  pricing: Pricing | undefined,
  budgetUsd: number | undefined,
): Pricing | undefined {
  if (budgetUsd === undefined) return pricing;
  if (!pricing)
    throw new OutpostError("configuration", "budgetUsd needs pricing: the prices per model that turn each job's usage into money.");
  if (typeof budgetUsd !== "number" || !Number.isFinite(budgetUsd) || budgetUsd <= 0)
    throw new OutpostError("configuration", `budgetUsd must be a positive number of US dollars; got ${String(budgetUsd)}.`);
  return { ...pricing, ledger: queueLedger(redis, queueName, budgetUsd) };
}
