import type { DispatchState } from "../stages/dispatch-state.js";
import { workspaceOf } from "../stages/dispatch-state.js";
import { withinLimit } from "../stages/stage-limit.js";
import { checkGuard } from "./check-guard.js";
import { measureChanges } from "./measure-changes.js";

type Stage = (state: DispatchState) => Promise<void>;

/** Runs `stage`, then checks the `guard` option against the work it brought home. */
export function guardedAfter(stage: Stage): Stage {
  return async (state) => {
    await stage(state);
    await guardWork(state);
  };
}

/** Checks the `guard` option against the work, then runs `stage` (integrate: nothing lands past the guard). */
export function guardedBefore(stage: Stage): Stage {
  return async (state) => {
    await guardWork(state);
    await stage(state);
  };
}

async function guardWork(state: DispatchState): Promise<void> {
  const guard = state.options.guard;
  if (!guard) return;
  const workspace = workspaceOf(state);
  const changes = await withinLimit(state, "collectMs", (signal) => measureChanges(workspace.directory, workspace.baseline, signal));
  checkGuard(guard, changes, state.phase);
}
