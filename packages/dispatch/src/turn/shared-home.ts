import { basename } from "node:path";
import type { SandboxLease, SandboxProvider } from "@outpost/core";

/** A private home the local provider made for one lease (`mkdtemp(<tmp>/outpost-home-)`), removed on release. */
export function isPrivateHostHome(provider: SandboxProvider, lease: SandboxLease): boolean {
  return provider.placement === "host" && /^outpost-home-/.test(basename(lease.home));
}

/**
 * Whether the lease home may be the user's own: a host home Outpost did not make for this lease (the local
 * provider's default host home, or a path). The agent's CLI configuration files there are the user's.
 */
export function isSharedHome(provider: SandboxProvider, lease: SandboxLease): boolean {
  return provider.placement === "host" && !isPrivateHostHome(provider, lease);
}
