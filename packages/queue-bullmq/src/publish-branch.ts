import { OutpostError, type Transport } from "@outpost/core";
import { unbundleCommits, type StoredBundle } from "./commit-bundle.js";
import { runGit } from "./run-git.js";

/** A committed result's publication: the job's branch, the head it goes to, and where its commits are kept. */
export interface PublishedWork {
  readonly branch: string;
  readonly head: string;
  /** Absent when the attempt made no commit: the head is then a commit the remote already had. */
  readonly bundle?: StoredBundle;
}

/** Moves the job's branch on the remote to the head, which this checkout holds: one push. */
export async function pushBranch(directory: string, published: PublishedWork, signal?: AbortSignal): Promise<void> {
  await runGit(directory, ["push", "--quiet", "--force", "origin", `${published.head}:refs/heads/${published.branch}`], {
    remote: true,
    signal,
  });
}

/**
 * Finishes the publication of a committed result, on any worker: idempotent, so it can follow a worker that died
 * after the commit. When the branch already holds the head there is nothing to do; otherwise the commits are
 * taken from the stored bundle if this worker never saw them, then pushed.
 */
export async function publishBranch(
  directory: string,
  published: PublishedWork,
  transport: Transport,
  signal?: AbortSignal,
): Promise<void> {
  const branchRef = `refs/heads/${published.branch}`;
  const listed = await runGit(directory, ["ls-remote", "origin", branchRef], { remote: true, signal });
  if (listed.split("\t")[0] === published.head) return;
  const known = await runGit(directory, ["cat-file", "-e", `${published.head}^{commit}`]).then(
    () => true,
    () => false,
  );
  if (!known) {
    const stored = published.bundle && (await transport.read(published.bundle.key));
    if (published.bundle === undefined || stored === undefined)
      throw new OutpostError(
        "transport",
        `The committed result's head ${published.head} is neither in this checkout nor in the result transport` +
          `${published.bundle ? ` (${published.bundle.key} is missing)` : ""}. Check that every worker shares one result transport.`,
        { details: { head: published.head, branch: published.branch } },
      );
    await unbundleCommits(directory, stored.bytes, published.bundle, published.head);
  }
  await pushBranch(directory, published, signal);
}
