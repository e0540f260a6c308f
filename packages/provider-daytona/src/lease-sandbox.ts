import type { Sandbox } from "@daytonaio/sdk";
import type { FileApiSandbox } from "@outpost/plugin-utils";
import type { SessionPool } from "./session-pool.js";

/** What the command and transfer code needs from a lease: the SDK sandbox, its sessions and the lease's directories. */
export interface LeaseSandbox extends FileApiSandbox {
  readonly sandbox: Sandbox;
  /** The lease's process sessions: each command runs as a session command in one of its own. */
  readonly sessions: SessionPool;
  /** Variables every command gets (provider, context, HOME). */
  readonly variables: Readonly<Record<string, string>>;
}
