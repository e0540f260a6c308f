import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { cleanDispatches } from "@outpost/dispatch";
import { dropAttemptWork } from "./drop-attempt-work.js";
import { runGit } from "./run-git.js";

/** A checkout of a remote in the worker's cache, fetched, with the commit the job starts from. */
export interface CachedCheckout {
  readonly directory: string;
  readonly baseCommit: string;
}

/**
 * One clone per remote under `root`, fetched before each job. A cache belongs to one worker process: jobs of
 * that worker share it (their worktrees are separate), clones and fetches of one remote run one at a time.
 */
export class RepositoryCache {
  readonly #root: string;
  readonly #pending = new Map<string, Promise<unknown>>();

  constructor(root: string) {
    this.#root = root;
    mkdirSync(root, { recursive: true });
  }

  /** Where the clone of `url` lives in this cache. */
  directoryOf(url: string): string {
    return join(this.#root, createHash("sha256").update(url).digest("hex").slice(0, 16));
  }

  /**
   * Cleans what dead attempts left in every cached checkout, before this worker takes a job: their orphaned
   * agents, sandboxes (through `removeContainer`: their provider's descriptor), worktrees and branches. Work the engine would keep for `outpost recover` is dropped
   * too: its job went back to the queue and another attempt redoes it. Returns what was removed.
   */
  async reap(removeContainer?: (id: string, provider: string) => Promise<void>): Promise<string[]> {
    const reaped: string[] = [];
    for (const entry of readdirSync(this.#root)) {
      const directory = join(this.#root, entry);
      if (!existsSync(join(directory, ".git"))) continue;
      try {
        const first = await cleanDispatches({ repository: directory, ...(removeContainer ? { removeContainer } : {}) });
        reaped.push(...first.cleaned.map((cleaned) => `${entry}: dispatch ${cleaned.dispatchId}: ${cleaned.actions.join("; ")}`));
        reaped.push(...(await dropAttemptWork(directory)).map((what) => `${entry}: ${what}`));
        // Now that nothing is kept, the records of the dropped work go too.
        if (first.cleaned.some((cleaned) => cleaned.kept !== undefined))
          await cleanDispatches({ repository: directory, ...(removeContainer ? { removeContainer } : {}) });
      } catch (error) {
        // A cache that cannot be cleaned still serves: its leftovers are named for an operator.
        reaped.push(`${entry}: could not reap: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return reaped;
  }

  checkout(url: string, base: string | undefined, signal?: AbortSignal): Promise<CachedCheckout> {
    const directory = this.directoryOf(url);
    return this.#queue(directory, () => this.#refresh(url, directory, base, signal));
  }

  /**
   * Tidies the clone of `url` after a job, off that job's path: the next checkout of the clone waits for it, the
   * job does not. Best effort: what a failure leaves is reaped at the worker's next start.
   */
  tidy(url: string, task: (directory: string) => Promise<unknown>): void {
    void this.run(url, task).catch(() => undefined);
  }

  /** Runs `task` on the clone of `url` once nothing else uses it (no checkout or tidying in between). */
  run<T>(url: string, task: (directory: string) => Promise<T>): Promise<T> {
    const directory = this.directoryOf(url);
    return this.#queue(directory, () => task(directory));
  }

  /** Resolves once every checkout and tidying queued so far has finished. */
  async settled(): Promise<void> {
    await Promise.all([...this.#pending.values()].map((pending) => pending.catch(() => undefined)));
  }

  /** Runs `task` after everything queued on `directory`: clones, fetches and tidying never overlap. */
  #queue<T>(directory: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#pending.get(directory) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(task);
    this.#pending.set(directory, next);
    return next;
  }

  async #refresh(url: string, directory: string, base: string | undefined, signal?: AbortSignal): Promise<CachedCheckout> {
    if (!existsSync(join(directory, ".git"))) {
      await runGit(undefined, ["clone", "--quiet", "--", url, directory], { remote: true, signal });
      // Commits the engine makes itself (integrations) need an identity; agents bring their own.
      await runGit(directory, ["config", "user.name", "Outpost worker"]);
      await runGit(directory, ["config", "user.email", "worker@outpost.invalid"]);
    } else {
      // Only what the job starts from: a busy remote has a branch per job.
      const refspecs = base === undefined ? [] : [`+refs/heads/${base}:refs/remotes/origin/${base}`];
      await runGit(directory, ["fetch", "--quiet", "origin", ...refspecs], { remote: true, signal });
    }
    const ref = base === undefined ? "refs/remotes/origin/HEAD" : `refs/remotes/origin/${base}`;
    const baseCommit = await runGit(directory, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).catch((error: unknown) => {
      throw new OutpostError(
        "configuration",
        `The remote ${url} has no ${base === undefined ? "default branch" : `branch ${base}`}. Set repository.base to a branch it has.`,
        { cause: error },
      );
    });
    return { directory, baseCommit };
  }
}
