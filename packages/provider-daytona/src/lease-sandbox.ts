import type { Sandbox } from "@daytonaio/sdk";
import type { FileApiSandbox } from "@outpost/plugin-utils";

/** What the command and transfer code needs from a lease: the SDK sandbox, its session and the lease's directories. */
export interface LeaseSandbox extends FileApiSandbox {
  readonly sandbox: Sandbox;
  /** The lease's process session: every command runs as an async session command in it. */
  readonly session: string;
  /** Variables every command gets (provider, context, HOME). */
  readonly variables: Readonly<Record<string, string>>;
}
