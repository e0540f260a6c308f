import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { cleanDispatches } from "@outpost/dispatch";
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

  /** Cleans what dead dispatches left in every cached checkout (their runner is gone: this worker was killed). */
  async reap(): Promise<void> {
    for (const entry of readdirSync(this.#root)) {
      const directory = join(this.#root, entry);
      if (existsSync(join(directory, ".git"))) await cleanDispatches({ repository: directory }).catch(() => undefined);
    }
  }

  checkout(url: string, base: string | undefined, signal?: AbortSignal): Promise<CachedCheckout> {
    const directory = this.directoryOf(url);
    const previous = this.#pending.get(directory) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.#refresh(url, directory, base, signal));
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
      await runGit(directory, ["fetch", "--quiet", "--prune", "origin"], { remote: true, signal });
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
