import assert from "node:assert/strict";
import type { SandboxLease } from "@outpost/core";
import { leaseCheck, unsupportedReason, type ProviderCapability, type ProviderSuiteContext } from "./provider-suite-context.js";

/** Whether a lease has each optional capability, read from the lease itself. */
export function leaseCapabilities(lease: SandboxLease): Record<ProviderCapability, boolean> {
  return {
    liveInput: lease.liveInput === true,
    fileTransfers: lease.fileTransfers !== undefined,
    uploadBatch: typeof lease.fileTransfers?.uploadBatch === "function",
  };
}

/** Capability declarations must match the lease, in both directions: no false "unsupported", no missing capability. */
export function providerCapabilityTests(context: ProviderSuiteContext): void {
  leaseCheck(context, "declares its unsupported capabilities truthfully", async ({ lease }) => {
    const problems: string[] = [];
    for (const [capability, present] of Object.entries(leaseCapabilities(lease)) as [ProviderCapability, boolean][]) {
      const reason = unsupportedReason(context, capability);
      if (present && reason !== undefined) {
        problems.push(`${capability} is declared unsupported ("${reason}") but the lease has it: remove it from \`unsupported\``);
      }
      if (!present && reason === undefined) {
        problems.push(
          `the lease lacks ${capability} but it is not declared unsupported: add \`unsupported: { ${capability}: "<reason>" }\``,
        );
      }
    }
    assert.deepEqual(problems, [], problems.join("; "));
  });
}
