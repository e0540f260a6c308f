import { seedRepository } from "../remote/seed-repository.js";
import { sandboxOf, workspaceOf, type DispatchState } from "./dispatch-state.js";

/**
 * Stage `seed`: gives the sandbox what the agent starts from that the provider did not expose: a remote
 * sandbox gets the work branch as a git bundle checked out at the baseline; a continued conversation is
 * restored from the agent's storage.
 */
export async function seedStage(state: DispatchState): Promise<void> {
  const { lease, context } = sandboxOf(state);
  if (state.options.sandboxProvider.placement === "remote") {
    const seeded = await seedRepository(workspaceOf(state), lease, state.staging, state.options.signal);
    state.seededBytes = seeded.bytes;
    state.observers.diagnostic(
      `seed: ${seeded.bytes} bytes of git bundle sent${seeded.delta ? " (delta over commits the sandbox held)" : ""}`,
    );
  }
  if (state.continued) await state.agent.storage!.restore(state.continued, context);
}
