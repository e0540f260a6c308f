import { OutpostError } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import { totalCost } from "./turn-cost.js";

/**
 * Before a turn starts: once the dispatch's turns cost `pricing.budgetUsd` or more, no further turn runs
 * (code `limit`). A turn already running is never cut short by the budget: its usage is known only at its end.
 */
export function assertWithinBudget(state: DispatchState): void {
  const budget = state.options.pricing?.budgetUsd;
  if (budget === undefined) return;
  const spent = totalCost(state.turns) ?? 0;
  if (spent < budget) return;
  throw new OutpostError(
    "limit",
    `The dispatch spent ${spent} USD over ${state.turns.length} turn(s), reaching pricing.budgetUsd (${budget} USD); ` +
      `no further turn was started. Raise the budget or continue the conversation in a new dispatch.`,
    { details: { limit: "budgetUsd", budgetUsd: budget, spentUsd: spent, turns: state.turns.length } },
  );
}
