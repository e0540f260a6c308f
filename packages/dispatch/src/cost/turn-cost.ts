import type { Usage } from "@outpost/core";
import type { ModelPrice, Pricing } from "./pricing.js";

/** The price of `model` in the table, else its `"*"` entry; undefined when neither is there. */
export function priceOf(pricing: Pricing, model: string | undefined): ModelPrice | undefined {
  return (model !== undefined && Object.hasOwn(pricing.models, model) ? pricing.models[model] : undefined) ?? pricing.models["*"];
}

/** What one turn's usage cost in US dollars at `price`; undefined when the agent reported no token at all. */
export function costOf(usage: Usage, price: ModelPrice): number | undefined {
  const counters = [usage.inputTokens, usage.outputTokens, usage.cacheReadTokens, usage.cacheWriteTokens];
  if (counters.every((count) => count === undefined)) return undefined;
  const dollars =
    (usage.inputTokens ?? 0) * price.input +
    (usage.outputTokens ?? 0) * price.output +
    (usage.cacheReadTokens ?? 0) * (price.cacheRead ?? price.input) +
    (usage.cacheWriteTokens ?? 0) * (price.cacheWrite ?? price.input);
  // Prices are per million tokens; rounded to a millionth of a dollar so sums do not drift.
  return Math.round(dollars) / 1_000_000;
}

/** The sum of the turns' costs; undefined when no turn has one. */
export function totalCost(turns: readonly { readonly costUsd?: number }[]): number | undefined {
  const priced = turns.filter((turn) => turn.costUsd !== undefined);
  if (priced.length === 0) return undefined;
  return Math.round(priced.reduce((sum, turn) => sum + turn.costUsd! * 1_000_000, 0)) / 1_000_000;
}

/** Two costs added without the drift of binary fractions (to a millionth of a dollar). */
export function addCosts(left: number, right: number): number {
  return Math.round((left + right) * 1_000_000) / 1_000_000;
}
