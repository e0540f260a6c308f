import { git } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";

/**
 * A bundle of the whole work branch, made from construction on while the sandbox is asked what it holds:
 * most seeds send it, and then it is ready. `stop` ends it unused (a delta or nothing is sent instead); a
 * `file()` after that makes it again, at another path (the stopped git may have left its lock file).
 */
export class SpeculativeBundle {
  private readonly ending = new AbortController();
  private readonly made: Promise<void>;
  private stopped = false;
  private again = 0;

  constructor(
    private readonly workspace: Workspace,
    private readonly path: string,
    private readonly signal?: AbortSignal,
  ) {
    const both = signal ? AbortSignal.any([signal, this.ending.signal]) : this.ending.signal;
    this.made = this.create(path, both);
    // Awaited by file(); a stopped or failed one that nobody asks for is no error.
    this.made.catch(() => undefined);
  }

  /** The bundle's host path once it is complete. */
  async file(): Promise<string> {
    if (!this.stopped) {
      await this.made;
      return this.path;
    }
    const path = `${this.path}.${++this.again}`;
    await this.create(path, this.signal);
    return path;
  }

  stop(): void {
    this.stopped = true;
    this.ending.abort();
  }

  private async create(path: string, signal: AbortSignal | undefined): Promise<void> {
    await git(
      this.workspace.directory,
      ["bundle", "create", "--quiet", path, `refs/heads/${this.workspace.branch!}`],
      signal ? { signal } : {},
    );
  }
}
