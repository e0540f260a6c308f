import type { Command, CommandResult } from "./command.js";
import type { FileTransfers, TransferOptions } from "./file-transfers.js";

/** The live sandbox a provider hands out. */
export interface SandboxLease {
  /** Contract version; omitted, it is the version the reference pages describe ("v1"). Another is refused. */
  readonly specificationVersion?: "v1";
  readonly fileTransfers?: FileTransfers;
  /** Whether invoke accepts Command.input as live stdin for a running process. */
  readonly liveInput?: boolean;
  /**
   * Whether a process waiting on `Command.input` costs nothing while it waits (a real stdin pipe, not
   * polled frames), so a process may be started ahead of the moment it is needed. Absent: false.
   */
  readonly idleInput?: boolean;
  /** Whether invoke writes Command.homeFiles as part of starting the process (no separate upload). */
  readonly homeFiles?: boolean;
  /**
   * Names the sandbox to its provider's descriptor (`removeSandbox`), so that the sandbox of a dispatch that
   * died can still be removed (`outpost clean`, queue workers). Host providers have none.
   */
  readonly sandboxId?: string;
  /** Repository directory in the sandbox; commands run there when Command.directory is absent. */
  readonly root: string;
  /** Agent home in the sandbox: credentials, CLI settings and native conversations live here. */
  readonly home: string;
  invoke(command: Command): Promise<CommandResult>;
  /** Host file or directory contents → sandbox. Keeps modes, relative links, empty directories. */
  upload(source: string, destination: string, options?: TransferOptions): Promise<void>;
  /** Sandbox file or directory contents → host. Keeps modes, relative links, empty directories. */
  download(source: string, destination: string, options?: TransferOptions): Promise<void>;
  /** Destroys the environment and stops its running commands. A second call resolves. */
  release(): Promise<void>;
}
