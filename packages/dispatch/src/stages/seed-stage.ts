import { seedRepository } from "../remote/seed-repository.js";
import { pendingChanges } from "../remote/pending-changes.js";
import { sendUncommitted } from "../remote/send-uncommitted.js";
import { withinLimit } from "./stage-limit.js";
import { bootstrapInSandbox } from "../bootstrap/bootstrap-in-sandbox.js";
import { sandboxOf, workspaceOf, type DispatchState } from "./dispatch-state.js";

/**
 * Stage `seed`: gives the sandbox what the agent starts from that the provider did not expose: a remote
 * sandbox gets the work branch as a git bundle checked out at the baseline (plus, with `includeUncommitted`,
 * the worktree's uncommitted files) and, when missing, the agent's pinned CLI (`bootstrap`); a continued
 * conversation is restored from the agent's storage.
 */
export async function seedStage(state: DispatchState): Promise<void> {
  const { lease } = sandboxOf(state);
  const { options, observers } = state;
  if (options.sandboxProvider.placement === "remote") {
    const workspace = workspaceOf(state);
    const seeded = await withinLimit(state, "gitMs", (signal) => seedRepository(workspace, lease, state.staging, signal));
    state.seededBytes = seeded.bytes;
    observers.diagnostic(`seed: ${seeded.bytes} bytes of git bundle sent${seeded.delta ? " (delta over commits the sandbox held)" : ""}`);
    state.pending = await pendingChanges(workspace, state.resolved.copies, options.signal);
    if (options.includeUncommitted === true && state.pending.files.size > 0) {
      const sent = await sendUncommitted(workspace, state.pending, lease, state.staging, options.signal);
      observers.diagnostic(`seed: ${sent} uncommitted or untracked files sent (includeUncommitted)`);
    }
  }
  await bootstrapInSandbox(state);
  if (state.continued) await state.agent.storage!.restore(state.continued, sandboxOf(state).context);
}
