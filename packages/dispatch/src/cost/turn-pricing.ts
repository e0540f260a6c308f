import type { Usage } from "@outpost/core";
import type { DispatchState } from "../stages/dispatch-state.js";
import { costOf, priceOf } from "./turn-cost.js";

/** The `costUsd` field of a turn with `pricing` (spread into the turn); empty without a price for the model. */
export function turnPricing(state: DispatchState, usage: Usage): { costUsd?: number } {
  const pricing = state.options.pricing;
  if (!pricing) return {};
  const price = priceOf(pricing, state.options.model);
  if (!price) {
    state.observers.warn(
      `pricing has no price for the model ${state.options.model ?? "(the agent's default)"} and no "*" entry: this turn's cost is unknown.`,
    );
    return {};
  }
  const costUsd = costOf(usage, price);
  return costUsd === undefined ? {} : { costUsd };
}
