import { OutpostError, type RecordedCommit, type SandboxLease } from "@outpost/core";
import { objectId, sandboxGit } from "../remote/sandbox-git-command.js";
import { rebuildScript } from "./rebuild-script.js";

/** What rebuilding one recorded commit gave: the object is written, nothing checked out yet. */
export interface RebuiltCommit {
  readonly id: string;
  readonly tree: string;
  /** Where the rebuilt commit stands: its first parent as rebuilt. */
  readonly parent: string;
}

/** A git command of the rebuild failed: the patch does not apply, or the repository is not as recorded. */
export class RebuildFailure extends OutpostError {}

/**
 * Rebuilds recorded commits into a scratch ref, never touching the work tree, the index or the branch: each
 * patch is applied to a private index (`GIT_INDEX_FILE`), its tree and commit objects written and checked by
 * the caller, and only `land()` moves the branch, by fast-forward, once every commit was verified. So a
 * divergence under `fail` leaves the branch and the work tree exactly as they were.
 */
export class ReplayBuild {
  private started: Promise<void> | undefined;
  private start = "";
  private head = "";
  private index = "";

  constructor(
    private readonly lease: SandboxLease,
    private readonly dispatchId: string,
  ) {}

  /** The scratch ref the rebuilt commits are kept under until they land. */
  get ref(): string {
    return `refs/outpost/replay/${this.dispatchId}`;
  }

  /**
   * Rebuilds a turn's commits in one sandbox process, each on the last one rebuilt (a commit whose patch does not
   * apply is skipped: undefined in its place). Nothing is kept until `accept()`.
   */
  async rebuildAll(commits: readonly RecordedCommit[], signal?: AbortSignal): Promise<(RebuiltCommit | undefined)[]> {
    await this.open(signal);
    if (commits.length === 0) return [];
    const result = await this.lease.invoke({
      executable: "sh",
      stdin: rebuildScript(this.head, commits),
      variables: { GIT_INDEX_FILE: this.index },
      directory: this.lease.root,
      ...(signal ? { signal } : {}),
      deadlineMs: 600_000,
      retain: 64 * 1024,
    });
    const lines = result.stdout.split("\n").filter((line) => line !== "");
    if (result.status !== 0 || lines.length !== commits.length)
      throw new RebuildFailure(
        "replay",
        `Rebuilding the recorded commits failed (sh exit ${result.status}): ${(result.stderr || result.stdout).trim().slice(-500)}. ` +
          "The repository the replay runs in differs from the recording's; replay on a clean checkout of the recorded baseline.",
        { details: { status: result.status } },
      );
    return lines.map((line) => {
      const [state, tree, id, parent] = line.split(" ");
      if (state !== "ok") return undefined;
      if (!objectId(tree ?? "") || !objectId(id ?? "") || !objectId(parent ?? ""))
        throw new RebuildFailure(
          "replay",
          `The replay's rebuild printed ${JSON.stringify(line)}, not object ids. Check git in the sandbox.`,
        );
      return { tree: tree!, id: id!, parent: parent! };
    });
  }

  /** Keeps a verified commit: the next one is rebuilt on it, and the scratch ref names it. */
  accept(rebuilt: RebuiltCommit): void {
    this.head = rebuilt.id;
  }

  /** Points the scratch ref at the last kept commit, so the rebuilt objects are reachable until they land. */
  async keep(signal?: AbortSignal): Promise<void> {
    if (this.started && this.head !== this.start) await this.git(["update-ref", this.ref, this.head], { signal });
  }

  /**
   * Moves the branch and the work tree to the last kept commit by fast-forward; git refuses before writing
   * anything when a local change or untracked file would be overwritten. Returns why it refused.
   */
  async land(signal?: AbortSignal): Promise<string | undefined> {
    if (!this.started || this.head === this.start) return undefined;
    try {
      await this.git(["merge", "--ff-only", "--quiet", this.head], { signal });
      return undefined;
    } catch (error) {
      if (error instanceof RebuildFailure) return error.message;
      throw error;
    }
  }

  /** Removes the scratch ref and the private index; the branch keeps what landed. */
  async close(): Promise<void> {
    if (!this.started) return;
    await this.started.catch(() => undefined);
    if (!this.index) return;
    await Promise.allSettled([
      this.git(["update-ref", "-d", this.ref], {}),
      this.lease.invoke({ executable: "rm", arguments: ["-f", this.index], directory: this.lease.root, deadlineMs: 60_000 }),
    ]);
  }

  private open(signal?: AbortSignal): Promise<void> {
    this.started ??= (async () => {
      const [gitDirectory, head] = (await this.git(["rev-parse", "--absolute-git-dir", "HEAD^{commit}"], { signal })).split("\n");
      if (!gitDirectory || !head || !objectId(head))
        throw new RebuildFailure(
          "replay",
          "The sandbox's repository has no commit to replay onto. Replay on a checkout of the recorded baseline.",
        );
      this.start = this.head = head;
      this.index = `${gitDirectory}/outpost-replay-${this.dispatchId}.index`;
      await this.git(["read-tree", head], { index: true, signal });
    })();
    return this.started;
  }

  private git(
    args: readonly string[],
    options: { readonly stdin?: string; readonly index?: boolean; readonly signal?: AbortSignal },
  ): Promise<string> {
    return sandboxGit(this.lease, args, `replay (git ${args[0]})`, {
      ...(options.stdin !== undefined ? { stdin: options.stdin } : {}),
      ...(options.index ? { variables: { GIT_INDEX_FILE: this.index } } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      // A replay's git fails because the repository is not the recording's, not because git is missing.
      failed: (status, output) =>
        new RebuildFailure(
          "replay",
          `The replay's git ${args[0]} failed: ${output}. The repository the replay runs in differs from the recording's; replay on a clean checkout of the recorded baseline.`,
          { details: { status } },
        ),
    });
  }
}
