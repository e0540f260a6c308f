import { OutpostError, type RecordedCommit, type SandboxLease } from "@outpost/core";
import { objectId } from "../remote/sandbox-git-command.js";
import { finishScript, rebuildScript } from "./rebuild-script.js";

/** What rebuilding one recorded commit gave: the object is written, nothing checked out yet. */
export interface RebuiltCommit {
  readonly id: string;
  readonly tree: string;
  /** Where the rebuilt commit stands: its first parent as rebuilt. */
  readonly parent: string;
}

/** The rebuild could not run: the repository is not the recording's, or git failed. */
export class RebuildFailure extends OutpostError {}

/**
 * Rebuilds recorded commits into a scratch ref, never touching the work tree, the index or the branch: each
 * patch is applied to a private index (`GIT_INDEX_FILE`), its tree and commit objects written and checked by
 * the caller, and only `finish(true)` moves the branch, by fast-forward, once every commit was verified. So a
 * divergence under `fail` leaves the branch and the work tree exactly as they were. Each turn is one sandbox
 * process (two when the fast rebuild could not give the recorded commits), and so is the end.
 */
export class ReplayBuild {
  private start: string | undefined;
  private head = "";
  private index = "";
  private finished = false;

  constructor(
    private readonly lease: SandboxLease,
    private readonly dispatchId: string,
  ) {}

  /** The scratch ref the rebuilt commits are kept under until they land. */
  get ref(): string {
    return `refs/outpost/replay/${this.dispatchId}`;
  }

  /**
   * Rebuilds a turn's commits, each on the last one rebuilt (a commit whose patch does not apply is skipped:
   * undefined in its place), and points the scratch ref at the last. Nothing lands until `finish(true)`.
   */
  async rebuildAll(commits: readonly RecordedCommit[], signal?: AbortSignal): Promise<(RebuiltCommit | undefined)[]> {
    if (commits.length === 0) return [];
    const from = this.start ? { index: this.index, head: this.head } : { indexName: `outpost-replay-${this.dispatchId}.index` };
    const output = await this.sh(rebuildScript(from, this.ref, commits), "Rebuilding the recorded commits", signal);
    const lines = output.split("\n").filter((line) => line !== "");
    if (!this.start) {
      const [, head, ...index] = (lines.shift() ?? "").split(" ");
      if (!objectId(head ?? "") || index.length === 0) throw this.unexpected(output);
      this.start = this.head = head!;
      this.index = index.join(" ");
    }
    if (lines[0] === "fast" || lines[0] === "again") {
      const fast = lines[0] === "fast" ? this.fastRebuilt(commits, lines.slice(1)) : undefined;
      if (fast) return fast;
      // Not the recorded commits after all: rebuilt again one by one, so that each divergence is told as it is.
      const again = await this.sh(
        rebuildScript({ index: this.index, head: this.head }, this.ref, commits, false),
        "Rebuilding the recorded commits",
        signal,
      );
      return this.rebuilt(commits, again);
    }
    return this.rebuilt(commits, lines.join("\n"));
  }

  /** The fast rebuild's commits, when each has the recorded id (so also the recorded tree and parent). */
  private fastRebuilt(commits: readonly RecordedCommit[], ids: readonly string[]): RebuiltCommit[] | undefined {
    if (ids.length !== commits.length || commits.some((commit, position) => ids[position] !== commit.id)) return undefined;
    let parent = this.head;
    return commits.map((commit) => {
      const rebuilt = { tree: commit.tree, id: commit.id, parent };
      parent = commit.id;
      return rebuilt;
    });
  }

  /** The commit-by-commit rebuild's lines: `ok <tree> <id> <parent>` or `failed` for each commit. */
  private rebuilt(commits: readonly RecordedCommit[], output: string): (RebuiltCommit | undefined)[] {
    const lines = output.split("\n").filter((line) => line !== "");
    if (lines.length !== commits.length) throw this.unexpected(output);
    return lines.map((line) => {
      const [state, tree, id, parent] = line.split(" ");
      if (state !== "ok") return undefined;
      if (!objectId(tree ?? "") || !objectId(id ?? "") || !objectId(parent ?? "")) throw this.unexpected(line);
      return { tree: tree!, id: id!, parent: parent! };
    });
  }

  /** Keeps a verified commit: the next one is rebuilt on it. */
  accept(rebuilt: RebuiltCommit): void {
    this.head = rebuilt.id;
  }

  /**
   * Ends the replay once: with `land`, moves the branch and the work tree to the last kept commit by
   * fast-forward and returns why git refused, if it did; either way removes the scratch ref and private index.
   */
  async finish(land: boolean, signal?: AbortSignal): Promise<string | undefined> {
    if (this.finished || !this.start) return undefined;
    this.finished = true;
    const target = land && this.head !== this.start ? this.head : undefined;
    const output = await this.sh(finishScript(this.ref, this.index, target), "Moving the branch to the replayed commits", signal);
    const refused = /^refused (.*)$/s.exec(output.trim());
    return refused ? refused[1]!.trim() || "git merge --ff-only refused" : undefined;
  }

  private async sh(script: string, what: string, signal?: AbortSignal): Promise<string> {
    const result = await this.lease.invoke({
      executable: "sh",
      stdin: script,
      directory: this.lease.root,
      ...(signal ? { signal } : {}),
      deadlineMs: 600_000,
      retain: 64 * 1024,
    });
    if (result.status === 0) return result.stdout;
    // A replay's git fails because the repository is not the recording's, not because git is missing.
    throw new RebuildFailure(
      "replay",
      `${what} failed (sh exit ${result.status}): ${(result.stderr || result.stdout).trim().slice(-500)}. ` +
        "The repository the replay runs in differs from the recording's (or has no commit); replay on a clean checkout of the recorded baseline.",
      { details: { status: result.status } },
    );
  }

  private unexpected(output: string): RebuildFailure {
    return new RebuildFailure(
      "replay",
      `The replay's rebuild printed ${JSON.stringify(output.slice(0, 300))}, not what it prints. Check git and sh in the sandbox.`,
    );
  }
}
