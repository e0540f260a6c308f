import { OutpostError, type SandboxProvider } from "@outpost/core";
import type { ProvidedOptions } from "../dispatch-options.js";
import { canonicalBranchPolicy, type BranchPolicy } from "../workspace/branch-policy.js";

/**
 * The branch policy for this provider: a remote sandbox holds a copy of the repository, so its work must
 * land on a branch of its own (`named` or `integrate`, default `integrate`), never on the host checkout.
 */
export function branchPolicyFor(options: ProvidedOptions): BranchPolicy {
  const provider = options.sandboxProvider;
  if (provider.placement !== "remote") return canonicalBranchPolicy(options.branch ?? { mode: "current" });
  const branch = options.branch ?? { mode: "integrate" };
  if (branch.mode === "current")
    throw new OutpostError(
      "configuration",
      `Provider ${provider.name} is remote: its work comes back as commits on a branch of their own, ` +
        `so branch mode "current" cannot be honoured. Use { mode: "integrate" } (the default) or { mode: "named", name }.`,
    );
  return canonicalBranchPolicy(branch);
}

/**
 * Refuses, before anything is allocated, options that the provider's declared placement and capabilities
 * cannot honour (code `configuration`).
 */
export function assertProviderHonours(options: ProvidedOptions): void {
  const provider: SandboxProvider = options.sandboxProvider;
  if (provider.placement !== "host" && provider.placement !== "mounted" && provider.placement !== "remote")
    throw new OutpostError(
      "configuration",
      `Provider ${provider.name} declares an unknown placement ${JSON.stringify(provider.placement)}. A provider is "host", "mounted" or "remote".`,
    );
  if (options.includeUncommitted !== undefined && typeof options.includeUncommitted !== "boolean")
    throw new OutpostError("configuration", "includeUncommitted must be true or false.");
  if (options.recoveryTransport !== undefined && provider.placement !== "remote")
    throw new OutpostError(
      "configuration",
      `recoveryTransport is for remote providers only: ${provider.name} works on the host's worktree itself, so no work is brought back to archive. Drop recoveryTransport.`,
    );
  if (
    provider.placement === "mounted" &&
    (options.branch?.mode ?? "current") === "current" &&
    provider.capabilities?.protectedPaths !== true
  )
    throw new OutpostError(
      "configuration",
      `Provider ${provider.name} mounts the checkout itself in branch mode "current" but does not declare capabilities.protectedPaths, ` +
        `so the agent could write .outpost/ (its .env, storage, journals), which the host reads and runs later. ` +
        `Use { mode: "integrate" } or { mode: "named", name }, or a provider that keeps SandboxContext.protectedPaths unwritable.`,
    );
  if (options.includeUncommitted === true && provider.placement !== "remote")
    throw new OutpostError(
      "configuration",
      `includeUncommitted is for remote providers only: ${provider.name} works on the host's worktree itself, where uncommitted files already are. Drop includeUncommitted.`,
    );
}
