import { OutpostError, type Transport } from "@outpost/core";
import { unbundleCommits, type StoredBundle } from "./commit-bundle.js";
import { keepConflictingWork, remoteTip } from "./publication-conflict.js";
import { runGit } from "./run-git.js";

/** A committed result's publication: the job's branch, the head it goes to, and where its commits are kept. */
export interface PublishedWork {
  readonly job: string;
  readonly branch: string;
  readonly head: string;
  /** Absent when the attempt made no commit: the head is then a commit the remote already had. */
  readonly bundle?: StoredBundle;
}

/** The branch a job publishes on unless it names one: the job owns it, nobody else writes it. */
export function ownBranchOf(job: string): string {
  return `outpost/queue/${job}`;
}

/**
 * Moves the job's branch on the remote to the head, which this checkout holds, never dropping a commit this job
 * did not write. Its own branch (`outpost/queue/<job>`) is a compare-and-swap on its absence
 * (`--force-with-lease=<ref>:`); any other branch takes a plain push, which the remote accepts only as a
 * fast-forward from the tip it advertised (checked again under the ref's lock). When the push is refused, the
 * remote's tip decides: already the head (an earlier attempt published it) or containing it, nothing to do;
 * otherwise code `conflict`, the commits kept under `refs/outpost/kept/<job>`.
 */
export async function pushBranch(directory: string, work: PublishedWork, signal?: AbortSignal): Promise<void> {
  const ref = `refs/heads/${work.branch}`;
  const lease = work.branch === ownBranchOf(work.job) ? [`--force-with-lease=${ref}:`] : [];
  try {
    await runGit(directory, ["push", "--quiet", "origin", ...lease, `${work.head}:${ref}`], { remote: true, signal });
  } catch (error) {
    // An unreachable remote keeps its own failure (retried); only a refusal is looked into.
    const tip = await remoteTip(directory, ref, signal).catch(() => {
      throw error;
    });
    if (tip === work.head) return;
    if (tip === undefined || !refused(error)) throw error;
    await runGit(directory, ["fetch", "--quiet", "--no-tags", "origin", ref], { remote: true, signal });
    const contained = await runGit(directory, ["merge-base", "--is-ancestor", work.head, tip]).then(
      () => true,
      () => false,
    );
    if (contained) return;
    const dropped = Number(await runGit(directory, ["rev-list", "--count", `${work.head}..${tip}`]));
    throw await keepConflictingWork(directory, work, tip, dropped, signal);
  }
}

/** Whether git refused the update (stale lease, not a fast-forward) rather than failing to reach the remote. */
function refused(error: unknown): boolean {
  return error instanceof Error && /\[rejected\]|stale info|non-fast-forward|fetch first|already exists/.test(error.message);
}

/**
 * Finishes the publication of a committed result, on any worker: idempotent, so it can follow a worker that died
 * after the commit (or during the push). The commits are taken from the stored bundle if this worker never saw
 * them, then pushed as above: a push that already landed is recognised, not repeated.
 */
export async function publishBranch(
  directory: string,
  published: PublishedWork,
  transport: Transport,
  signal?: AbortSignal,
): Promise<void> {
  const known = await runGit(directory, ["cat-file", "-e", `${published.head}^{commit}`]).then(
    () => true,
    () => false,
  );
  if (!known) {
    if ((await remoteTip(directory, `refs/heads/${published.branch}`, signal)) === published.head) return;
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
