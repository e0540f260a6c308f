import type { Readable } from "node:stream";

export type CommandChannel = "stdout" | "stderr";

/** A file written under the lease home as part of starting a command (see `Command.homeFiles`). */
export interface CommandHomeFile {
  /** Relative to `lease.home`, normalized (no `..`, not absolute, not empty). */
  readonly path: string;
  readonly content: string;
}

/** One process to run in a sandbox. No shell parsing: `executable` and `arguments` are passed as is. */
export interface Command {
  readonly executable: string;
  readonly arguments?: readonly string[];
  /** Written to stdin first. */
  readonly stdin?: string;
  /** Live stdin after `stdin`; stdin closes when it ends. Only on leases with `liveInput`. */
  readonly input?: Readable;
  /** Working directory; defaults to `lease.root`. */
  readonly directory?: string;
  readonly variables?: Readonly<Record<string, string>>;
  /** Aborting kills the process and all its descendants, never the sandbox. */
  readonly signal?: AbortSignal;
  /** Kills the process and all its descendants after this many milliseconds (code `timeout`). */
  readonly deadlineMs?: number;
  /** Bytes of tail kept per stream in the result (provider default when omitted). */
  readonly retain?: number;
  /** Streaming output; an exception thrown here never breaks the run. */
  readonly observe?: (channel: CommandChannel, text: string) => void;
  /** Attach a terminal (optional; providers that cannot do it refuse with `configuration`). */
  readonly interactive?: boolean;
  readonly terminal?: { readonly columns: number; readonly rows: number };
  /**
   * Only on leases with `homeFiles`: written under `lease.home` right before the process starts, in the same
   * round trip — 0600 files in 0700 directories, a path given twice keeps its last content. A link on the way
   * (a parent or the file itself), a parent that is not a directory, or a special file at the path is refused,
   * never followed (code `workspace`), and the process does not start.
   */
  readonly homeFiles?: readonly CommandHomeFile[];
}

export interface CommandResult {
  /** The real exit status, also when non-zero. A process killed by a signal reports 128 + signal number. */
  readonly status: number;
  /** Retained tail of stdout. */
  readonly stdout: string;
  /** Retained tail of stderr. */
  readonly stderr: string;
}

/** Default bytes of tail kept per stream when `Command.retain` is omitted. */
export const DEFAULT_RETAIN_BYTES = 1024 * 1024;
