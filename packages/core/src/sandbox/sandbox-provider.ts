import type { SandboxLease } from "./sandbox-lease.js";

/** host: runs on the host; mounted: host worktree mounted into the sandbox; remote: a synchronized copy. */
export type SandboxPlacement = "host" | "mounted" | "remote";

/** What a provider is asked to expose. */
export interface SandboxContext {
  /** Host checkout. */
  readonly repository: string;
  /** The worktree to expose as the lease root. */
  readonly directory: string;
  /** Host git directories the worktree needs (e.g. the common dir of a linked worktree). */
  readonly gitDirectories: readonly string[];
  readonly variables: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
}

export interface SandboxProvider {
  readonly specificationVersion: "v1";
  readonly name: string;
  readonly placement: SandboxPlacement;
  /** Variables added to every command of every lease. */
  readonly variables?: Readonly<Record<string, string>>;
  acquire(context: SandboxContext): Promise<SandboxLease>;
}
