export type LogStream = "stdout" | "stderr";

export interface LogEntry {
  readonly stream: LogStream;
  readonly data: Buffer;
}

/**
 * What the daemon keeps of one command: its logs (kept for late readers), its exit code, and followers.
 * `lost` marks a session command whose shell went away first: it never gets an exit code.
 */
export class CommandLog {
  readonly logs: LogEntry[] = [];
  exitCode: number | undefined;
  lost = false;
  readonly done: Promise<void>;
  private settle!: () => void;
  private readonly listeners = new Set<(entry: LogEntry | undefined) => void>();

  constructor(
    readonly id: string,
    readonly command: string,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
  }

  get ended(): boolean {
    return this.exitCode !== undefined || this.lost;
  }

  /** Replays the logs so far, then follows; `undefined` marks the end. Returns an unsubscribe function. */
  follow(listener: (entry: LogEntry | undefined) => void): () => void {
    for (const entry of this.logs) listener(entry);
    if (this.ended) {
      listener(undefined);
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(entry: LogEntry): void {
    if (entry.data.length === 0) return;
    this.logs.push(entry);
    for (const listener of this.listeners) listener(entry);
  }

  /** The command ended with `code`, or (undefined) its session's shell is gone and it never will. */
  finish(code: number | undefined): void {
    if (this.ended) return;
    if (code === undefined) this.lost = true;
    else this.exitCode = code;
    for (const listener of this.listeners) listener(undefined);
    this.listeners.clear();
    this.settle();
  }
}
