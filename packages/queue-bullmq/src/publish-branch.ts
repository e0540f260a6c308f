import { runGit } from "./run-git.js";

/**
 * Where an attempt parks its work on the remote before it may publish: a ref of its own, outside
 * `refs/heads`, named by its fence token. A stale attempt can push there and harm nothing: only the attempt
 * whose result Redis committed (atomically with its token check) ever moves the job's branch.
 */
export function attemptRef(queueName: string, jobId: string, fence: number): string {
  return `refs/outpost/attempts/${queueName}/${jobId}/${fence}`;
}

/** Pushes the attempt's head (a commit of the cache) to its attempt ref on the remote. */
export async function pushAttempt(directory: string, head: string, ref: string, signal?: AbortSignal): Promise<void> {
  await runGit(directory, ["push", "--quiet", "--force", "origin", `${head}:${ref}`], { remote: true, signal });
}

/** Removes an attempt ref that will never be published (best effort: a leftover ref is only clutter). */
export async function dropAttempt(directory: string, ref: string): Promise<void> {
  await runGit(directory, ["push", "--quiet", "origin", `:${ref}`], { remote: true }).catch(() => undefined);
}

/**
 * Publication right after this attempt's own commit: it pushed the attempt ref and holds the head, so one
 * atomic push moves the branch and drops the ref, without asking the remote first. Anything unexpected (the
 * ref was already dropped by another worker finishing the publication) falls back to `publishBranch`.
 */
export async function publishOwnAttempt(
  directory: string,
  published: { readonly branch: string; readonly head: string; readonly attemptRef: string },
  signal?: AbortSignal,
): Promise<void> {
  const pushed = await runGit(
    directory,
    ["push", "--quiet", "--atomic", "--force", "origin", `${published.head}:refs/heads/${published.branch}`, `:${published.attemptRef}`],
    { remote: true, signal },
  ).then(
    () => true,
    () => false,
  );
  if (!pushed) await publishBranch(directory, published, signal);
}

/**
 * Moves the job's branch on the remote to the committed head, and drops the attempt ref, in one atomic push.
 * Idempotent, so any worker can finish the publication of a result whose worker died after committing it:
 * when the branch already holds the head there is nothing to do, otherwise the head is fetched from the
 * attempt ref first (this worker may never have seen the commit).
 */
export async function publishBranch(
  directory: string,
  published: { readonly branch: string; readonly head: string; readonly attemptRef: string },
  signal?: AbortSignal,
): Promise<void> {
  const branchRef = `refs/heads/${published.branch}`;
  const remote = await runGit(directory, ["ls-remote", "origin", branchRef, published.attemptRef], { remote: true, signal });
  const heads = new Map(
    remote
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [commit, ref] = line.split("\t");
        return [ref!, commit!] as const;
      }),
  );
  if (heads.get(branchRef) === published.head) {
    if (heads.has(published.attemptRef)) await dropAttempt(directory, published.attemptRef);
    return;
  }
  const known = await runGit(directory, ["cat-file", "-e", `${published.head}^{commit}`]).then(
    () => true,
    () => false,
  );
  if (!known) await runGit(directory, ["fetch", "--quiet", "origin", published.attemptRef], { remote: true, signal });
  const dropRef = heads.has(published.attemptRef) ? [`:${published.attemptRef}`] : [];
  await runGit(directory, ["push", "--quiet", "--atomic", "--force", "origin", `${published.head}:${branchRef}`, ...dropRef], {
    remote: true,
    signal,
  });
}
