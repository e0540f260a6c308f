import { sandboxOf, type DispatchState } from "../stages/dispatch-state.js";
import { bootstrapAgent } from "./bootstrap-agent.js";

/**
 * Remote placement only (mounted and host sandboxes install nothing: the CLI must be in the image or on the
 * host): installs the running agent's pinned CLI when it is missing, and puts it first on the PATH of the
 * agent's commands.
 */
export async function bootstrapInSandbox(state: DispatchState): Promise<void> {
  const { options, agent } = state;
  if (options.sandboxProvider.placement !== "remote" || agent.kind !== "cli") return;
  const held = sandboxOf(state);
  const variables = await bootstrapAgent({
    lease: held.lease,
    agent,
    variables: state.variables.get(agent) ?? {},
    bootstrap: state.resolved.bootstrap,
    providerName: options.sandboxProvider.name,
    staging: state.staging,
    ...(options.signal ? { signal: options.signal } : {}),
    diagnostic: (message) => state.observers.diagnostic(message),
  });
  if (!variables) return;
  state.variables.set(agent, variables);
  state.sandbox = { ...held, context: { ...held.context, variables } };
}
