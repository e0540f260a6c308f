import type { Sandbox } from "@daytonaio/sdk";

/** What the command and transfer code needs from a lease: the SDK sandbox, its session and the lease's directories. */
export interface LeaseSandbox {
  readonly sandbox: Sandbox;
  /** The lease's process session: every command runs as an async session command in it. */
  readonly session: string;
  readonly root: string;
  readonly home: string;
  /** A lease-private scratch directory in the sandbox (input frames, archives), outside root and home. */
  readonly scratch: string;
  /** Variables every command gets (provider, context, HOME). */
  readonly variables: Readonly<Record<string, string>>;
  /** A name unique within the lease, for scratch files. */
  nextName(prefix: string): string;
  assertUsable(what: string): void;
}
