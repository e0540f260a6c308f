import { OutpostError, type Transport } from "@outpost/core";
import { dispatchRecovery } from "@outpost/dispatch";
import { bundleCommits } from "./commit-bundle.js";
import type { Fence } from "./fence.js";
import { runGit } from "./run-git.js";

/** Where a failed attempt's commits are kept: beside its job's records, never in one worker's folder. */
export function keptBundleKey(queueName: string, jobId: string, fence: number): string {
  return `${queueName}/${jobId}/kept-${fence}.bundle`;
}

/**
 * A dispatch of this attempt failed. Its commits, if it made any and the attempt still holds the job, are stored
 * as a git bundle in the result transport (create-only), since the attempt's worktree and branch in the worker's
 * cache are removed next. Returns the error to fail the job with: the dispatch's own, its sentences pointing at
 * worker-local paths (`outpost recover`, the worktree) replaced by where the commits are.
 */
export async function keepFailedWork(
  error: unknown,
  attempt: { readonly directory: string; readonly base: string; readonly localBranch: string; readonly jobId: string },
  fence: Fence,
  transport: Transport,
  queueName: string,
): Promise<unknown> {
  const recovery = dispatchRecovery(error);
  const failure = OutpostError.isInstance(error) ? error : undefined;
  if (recovery === undefined || failure === undefined) return error;
  const ref = `refs/heads/${attempt.localBranch}`;
  const count = await runGit(attempt.directory, ["rev-list", "--count", `${attempt.base}..${ref}`]).catch(() => "0");
  const key = keptBundleKey(queueName, attempt.jobId, fence.token);
  const stored =
    Number(count) > 0 &&
    (await fence
      .check("keep its commits")
      .then(() => bundleCommits(attempt.directory, attempt.base, ref))
      .then((bytes) => transport.write(key, bytes, { ifRevision: null }))
      .then(
        () => true,
        () => false,
      ));
  const kept =
    Number(count) === 0
      ? ""
      : stored
        ? ` Its ${count} commit(s) are kept in the result transport as ${key} (a git bundle of ${ref}: git fetch <file> ${ref}).`
        : ` Its ${count} commit(s) could not be kept: the attempt lost the job or the result transport refused them.`;
  const local = [recovery.directory, "outpost recover"];
  const sentences = failure.message.split(/(?<=\.)\s+/).filter((sentence) => !local.some((path) => sentence.includes(path)));
  const classification = failure.details.classification;
  return new OutpostError(failure.code, `${sentences.join(" ")}${kept}`, {
    cause: error,
    details: {
      phase: recovery.phase,
      ...(typeof classification === "string" ? { classification } : {}),
      ...(stored ? { kept: key } : {}),
    },
  });
}
