import { OutpostError } from "@outpost/core";
import { runGit } from "./run-git.js";

/** Where a job's commits are kept on the remote when its branch moved under it: documented, never overwritten. */
export function keptRef(job: string): string {
  return `refs/outpost/kept/${job}`;
}

/**
 * The branch moved since the attempt started and publishing would drop someone's commits: the branch is left
 * alone, the attempt's head goes to `refs/outpost/kept/<job>` (create-only) so a person can merge it, and the
 * returned error (code `conflict`) says where the commits are and what to do.
 */
export async function keepConflictingWork(
  directory: string,
  work: { readonly job: string; readonly branch: string; readonly head: string; readonly bundle?: { readonly key: string } },
  tip: string,
  dropped: number,
  signal?: AbortSignal,
): Promise<OutpostError> {
  const ref = keptRef(work.job);
  const kept = await runGit(directory, ["push", "--quiet", "origin", `--force-with-lease=${ref}:`, `${work.head}:${ref}`], {
    remote: true,
    signal,
  }).then(
    () => true,
    // Kept already by an earlier attempt at this publication: the same head is there.
    async () => (await remoteTip(directory, ref, signal).catch(() => undefined)) === work.head,
  );
  const where = [
    ...(kept ? [`on the remote as ${ref} (git fetch origin ${ref})`] : []),
    ...(work.bundle ? [`in the result transport as ${work.bundle.key}`] : []),
  ];
  return new OutpostError(
    "conflict",
    `Job ${work.job}: publishing on branch ${work.branch} would drop ${dropped} commit(s) that someone else pushed there ` +
      `(the branch is at ${tip.slice(0, 12)}, the job's work at ${work.head.slice(0, 12)}), so the branch was left as it is. ` +
      `The job's commits are kept ${where.join(" and ") || "nowhere (the remote refused them too)"}: ` +
      "merge them into the branch by hand, or enqueue the job again with another repository.branch.",
    { details: { job: work.job, branch: work.branch, head: work.head, tip, dropped, ...(kept ? { kept: ref } : {}) } },
  );
}

/** The commit a remote ref points at, or undefined when the remote has no such ref. */
export async function remoteTip(directory: string, ref: string, signal?: AbortSignal): Promise<string | undefined> {
  const listed = await runGit(directory, ["ls-remote", "origin", ref], { remote: true, signal });
  const line = listed.split("\n").find((entry) => entry.endsWith(`\t${ref}`));
  return line?.split("\t")[0];
}
