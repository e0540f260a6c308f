import type { SandboxLease } from "./sandbox-lease.js";

/** host: runs on the host; mounted: host worktree mounted into the sandbox; remote: a synchronized copy. */
export type SandboxPlacement = "host" | "mounted" | "remote";

/** A private git directory for the sandbox (see `SandboxContext.git`). */
export interface SandboxGit {
  readonly directory: string;
  readonly objects: readonly string[];
}

/** What a provider is asked to expose. */
export interface SandboxContext {
  /** Host checkout. */
  readonly repository: string;
  /** The worktree to expose as the lease root. */
  readonly directory: string;
  /** Host git directories the worktree needs (e.g. the common dir of a linked worktree). */
  readonly gitDirectories: readonly string[];
  /**
   * Set by the engine for `mounted` providers instead of `gitDirectories`, so the sandbox never writes the
   * host's git directory (its hooks and config would run on the host): the provider exposes `directory`
   * writable as the root's `.git`, and each of `objects` (host object directories it borrows as
   * alternates) read-only at its host path. The engine imports the commits back after verification.
   */
  readonly git?: SandboxGit;
  /**
   * Host paths inside `directory` that the host reads or runs later (the checkout's `.outpost`: its `.env`,
   * storage, journals, locks, recovery). A provider that exposes `directory` to the sandbox must make each
   * unwritable there (e.g. an empty read-only mount over it) and declare `capabilities.protectedPaths`;
   * the engine refuses to hand such a path to a `mounted` provider that does not.
   */
  readonly protectedPaths?: readonly string[];
  readonly variables: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

/**
 * What every lease of a provider can do, declared before `acquire` so that options the provider cannot
 * honour are refused before anything is allocated. Each flag matches the lease member of the same name.
 */
export interface SandboxCapabilities {
  /** Every lease's `invoke` passes `Command.input` to the running process. */
  readonly liveInput: boolean;
  /** Every lease has `fileTransfers` (manifest and SHA-256 checked batches). */
  readonly fileTransfers: boolean;
  /** Every lease's `invoke` writes `Command.homeFiles` while starting the process. Absent: false. */
  readonly homeFiles?: boolean;
  /** Every lease keeps `SandboxContext.protectedPaths` unwritable from the sandbox. Absent: false. */
  readonly protectedPaths?: boolean;
}

export interface SandboxProvider {
  /** Contract version; omitted, it is the version the reference pages describe ("v1"). Another is refused. */
  readonly specificationVersion?: "v1";
  readonly name: string;
  readonly placement: SandboxPlacement;
  /** Known before `acquire`; a provider that omits it is assumed to have none of the optional capabilities. */
  readonly capabilities?: SandboxCapabilities;
  /** Variables added to every command of every lease. */
  readonly variables?: Readonly<Record<string, string>>;
  acquire(context: SandboxContext): Promise<SandboxLease>;
}
