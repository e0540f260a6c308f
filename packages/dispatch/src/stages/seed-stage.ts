import { sandboxOf, type DispatchState } from "./dispatch-state.js";

/**
 * Stage `seed`: gives the sandbox what the agent starts from that the provider did not expose: the
 * conversation being continued, restored from the agent's storage.
 */
export async function seedStage(state: DispatchState): Promise<void> {
  const { context } = sandboxOf(state);
  if (state.continued) await state.options.agent.storage!.restore(state.continued, context);
}
