import type { SandboxLease, SandboxProvider } from "@outpost/core";

/**
 * A provider that hands every dispatch the same lease: its `release()` is a no-op, so the engine's end of a
 * dispatch keeps the sandbox, and only the sandbox's own close releases it (see create-sandbox.ts).
 */
export function heldLeaseProvider(provider: SandboxProvider, lease: SandboxLease): SandboxProvider {
  const view = keptLease(lease);
  return {
    specificationVersion: provider.specificationVersion,
    name: provider.name,
    placement: provider.placement,
    ...(provider.capabilities ? { capabilities: provider.capabilities } : {}),
    ...(provider.variables ? { variables: provider.variables } : {}),
    acquire: () => Promise.resolve(view),
  };
}

/** The lease with every call delegated (a class lease keeps its own `this`) and a release that keeps it. */
function keptLease(lease: SandboxLease): SandboxLease {
  return {
    specificationVersion: lease.specificationVersion,
    ...(lease.fileTransfers ? { fileTransfers: lease.fileTransfers } : {}),
    ...(lease.liveInput !== undefined ? { liveInput: lease.liveInput } : {}),
    ...(lease.idleInput !== undefined ? { idleInput: lease.idleInput } : {}),
    ...(lease.homeFiles !== undefined ? { homeFiles: lease.homeFiles } : {}),
    ...(lease.sandboxId !== undefined ? { sandboxId: lease.sandboxId } : {}),
    root: lease.root,
    home: lease.home,
    invoke: (command) => lease.invoke(command),
    upload: (source, destination, options) => lease.upload(source, destination, options),
    download: (source, destination, options) => lease.download(source, destination, options),
    release: () => Promise.resolve(),
  };
}
