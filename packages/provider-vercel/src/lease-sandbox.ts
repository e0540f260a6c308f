import type { Sandbox } from "@vercel/sandbox";
import type { FileApiSandbox } from "@outpost/plugin-utils";

/** What the command and transfer code needs from a lease: the SDK sandbox and the lease's directories. */
export interface LeaseSandbox extends FileApiSandbox {
  readonly sandbox: Sandbox;
  /** Variables every command gets (provider, context; HOME only when the sandbox's own HOME is not the lease's home). */
  readonly variables: Readonly<Record<string, string>>;
}
