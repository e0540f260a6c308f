import type { SandboxLease, SandboxProvider } from "@outpost/core";
import type { GitBoundary } from "../git/git-boundary.js";
import type { Workspace } from "../workspace/workspace.js";

/** How a held provider gives each dispatch its git boundary (a mounted warm sandbox's private git directory). */
const HELD_GIT = Symbol("outpost.heldGit");

type HeldBoundary = (workspace: Workspace) => Promise<GitBoundary>;

/**
 * A provider that hands every dispatch the same lease: its `release()` is a no-op, so the engine's end of a
 * dispatch keeps the sandbox, and only the sandbox's own close releases it (see create-sandbox.ts).
 */
export function heldLeaseProvider(provider: SandboxProvider, lease: SandboxLease, boundary?: HeldBoundary): SandboxProvider {
  const view = keptLease(lease);
  return {
    ...(boundary ? { [HELD_GIT]: boundary } : {}),
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

/** The git boundary a held provider gives each dispatch, when it keeps one; the dispatch opens its own otherwise. */
export function heldBoundaryOf(provider: SandboxProvider): HeldBoundary | undefined {
  return (provider as SandboxProvider & { readonly [HELD_GIT]?: HeldBoundary })[HELD_GIT];
}
