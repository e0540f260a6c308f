import { OutpostError } from "@outpost/core";

/** Prices of one model, in US dollars per million tokens of each kind the agent reports. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Default: the input price. */
  readonly cacheRead?: number;
  /** Default: the input price. */
  readonly cacheWrite?: number;
}

/**
 * What a dispatch's tokens cost, and how much it may spend. `models` maps a model name (the dispatch's `model`)
 * to its prices; `"*"` prices any model the table does not name, or a dispatch that names none. Counters are
 * priced as the agent reports them (reasoning tokens are part of the output tokens of every agent here).
 */
export interface Pricing {
  readonly models: Readonly<Record<string, ModelPrice>>;
  /** Spending limit of one dispatch in US dollars: once reached, no further turn starts (code `limit`). */
  readonly budgetUsd?: number;
  /** A budget shared with other dispatches (a queue's): checked before each turn, charged after it. */
  readonly ledger?: BudgetLedger;
}

/**
 * Spending shared by several dispatches, kept where all of them see it (a queue keeps it in Redis). Each turn
 * starts only while `spent()` is below `budgetUsd`, and adds its cost once it ended.
 */
export interface BudgetLedger {
  /** Named in messages (for example `queue fleet`). */
  readonly name: string;
  readonly budgetUsd: number;
  /** What every dispatch charged so far, in US dollars. */
  spent(): Promise<number>;
  /** Charges one turn's cost. */
  add(usd: number): Promise<void>;
}

const PRICE_FIELDS = ["input", "output", "cacheRead", "cacheWrite"] as const;

/** Refuses a malformed pricing table before anything is allocated (code `configuration`). */
export function assertPricing(pricing: unknown, name = "pricing"): asserts pricing is Pricing | undefined {
  if (pricing === undefined) return;
  if (!isRecord(pricing)) throw configuration(`${name} must be an object: { models: { "<model>": { input, output } }, budgetUsd? }.`);
  const { models, budgetUsd } = pricing as Partial<Pricing>;
  if (!isRecord(models) || Object.keys(models).length === 0)
    throw configuration(`${name}.models must name at least one model (or "*") with its prices in USD per million tokens.`);
  for (const [model, price] of Object.entries(models)) {
    if (!isRecord(price))
      throw configuration(`${name}.models[${JSON.stringify(model)}] must be { input, output, cacheRead?, cacheWrite? }.`);
    for (const key of Object.keys(price))
      if (!(PRICE_FIELDS as readonly string[]).includes(key))
        throw configuration(`${name}.models[${JSON.stringify(model)}] has an unknown field ${key}; known: ${PRICE_FIELDS.join(", ")}.`);
    for (const field of PRICE_FIELDS) {
      const value = (price as Record<string, unknown>)[field];
      const required = field === "input" || field === "output";
      if ((value === undefined && required) || (value !== undefined && !nonNegative(value)))
        throw configuration(`${name}.models[${JSON.stringify(model)}].${field} must be a non-negative number of USD per million tokens.`);
    }
  }
  const { ledger } = pricing as Partial<Pricing>;
  if (
    ledger !== undefined &&
    (!isRecord(ledger) ||
      typeof ledger.spent !== "function" ||
      typeof ledger.add !== "function" ||
      !(nonNegative(ledger.budgetUsd) && ledger.budgetUsd > 0))
  )
    throw configuration(`${name}.ledger must be a BudgetLedger: { name, budgetUsd (positive), spent(), add(usd) }.`);
  if (budgetUsd !== undefined && !(nonNegative(budgetUsd) && budgetUsd > 0))
    throw configuration(`${name}.budgetUsd must be a positive number of US dollars.`);
}

function nonNegative(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
