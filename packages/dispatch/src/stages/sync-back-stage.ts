import type { DispatchState, HeldSandbox } from "./dispatch-state.js";
import { sandboxOf } from "./dispatch-state.js";

/**
 * Stage `syncBack`: brings the agent's work home and ends the sandbox. The lease is released first, so
 * nothing in the sandbox can write while its commits are imported and the git control files are checked.
 */
export async function syncBackStage(state: DispatchState): Promise<void> {
  const sandbox = sandboxOf(state);
  state.cleanupFailed = true;
  // Released once: a release that fails is not retried by the failure path, and is left for `outpost clean`.
  state.sandbox = undefined;
  await sandbox.lease.release();
  await closeBoundary(state, sandbox);
  state.cleanupFailed = false;
}

/** Restores changed git control files (with a warning) and imports the sandbox's commits. */
export async function closeBoundary(state: DispatchState, sandbox: HeldSandbox): Promise<void> {
  const { restored } = await sandbox.boundary.close(state.dispatchId);
  if (restored.length > 0)
    state.observers.warn(
      `The agent changed git control files of the repository; each was restored as it was before the turn: ${restored.join(", ")}.`,
    );
}
