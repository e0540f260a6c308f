import { OutpostError } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import { totalCost } from "./turn-cost.js";

/**
 * Before a turn starts: once the dispatch's turns cost `pricing.budgetUsd` or more, or the shared ledger's
 * budget is spent, no further turn runs (code `limit`). A turn already running is never cut short by the budget: its usage is known only at its end.
 */
export async function assertWithinBudget(state: DispatchState): Promise<void> {
  const ledger = state.options.pricing?.ledger;
  if (ledger) {
    const shared = await ledger.spent();
    if (shared >= ledger.budgetUsd)
      throw new OutpostError(
        "limit",
        `The shared budget of ${ledger.name} (${ledger.budgetUsd} USD) is spent (${shared} USD); no further turn was started.`,
        { details: { limit: "ledger", ledger: ledger.name, budgetUsd: ledger.budgetUsd, spentUsd: shared, turns: state.turns.length } },
      );
  }
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

/** Charges a turn's cost to the shared ledger; a ledger that cannot be written is a warning (the turn is done). */
export async function chargeTurn(state: DispatchState, costUsd: number | undefined): Promise<void> {
  const ledger = state.options.pricing?.ledger;
  if (!ledger || costUsd === undefined || costUsd === 0) return;
  await ledger
    .add(costUsd)
    .catch((error: unknown) =>
      state.observers.warn(`Could not charge ${costUsd} USD to ${ledger.name}: ${error instanceof Error ? error.message : String(error)}.`),
    );
}
