import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError, type RecordedCommit } from "@outpost/core";
import { git, gitStatus } from "../git/run-git.js";
import { commitObject, EMPTY_TREE, parseCommitObject } from "./commit-object.js";

/**
 * Records each commit (oldest first) with its tree, identities, dates, message and a binary patch from its
 * first parent, and proves at record time that a replay can rebuild it: the patch applied to the parent's
 * tree gives the commit's tree, and the recorded fields give back the exact commit object. A patch over
 * `maxPatchBytes` is refused with code `limit`; a commit that cannot be rebuilt with code `replay`.
 */
export async function recordCommits(
  directory: string,
  commits: readonly string[],
  maxPatchBytes: number,
  signal?: AbortSignal,
): Promise<RecordedCommit[]> {
  const scratch = await mkdtemp(join(tmpdir(), "outpost-record-"));
  try {
    const recorded: RecordedCommit[] = [];
    for (const id of commits) recorded.push(await recordCommit(directory, id, join(scratch, "index"), maxPatchBytes, signal));
    return recorded;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function recordCommit(
  directory: string,
  id: string,
  indexFile: string,
  maxPatchBytes: number,
  signal?: AbortSignal,
): Promise<RecordedCommit> {
  const refuse = (why: string): never => {
    throw new OutpostError("replay", `Commit ${id} cannot be recorded for replay: ${why}.`, { details: { commit: id } });
  };
  const object = await gitStatus(directory, ["cat-file", "commit", id], { signal });
  if (object.status !== 0) refuse(`git cat-file failed (${object.stderr.trim()})`);
  const fields =
    parseCommitObject(object.stdout) ??
    refuse("it carries a signature or another header a rebuild cannot reproduce; turn commit signing off for the agent");
  if (commitObject(fields) !== object.stdout) refuse("its object does not round-trip through its fields");
  const parent = fields.parents[0] ?? EMPTY_TREE;
  const diff = await gitStatus(
    directory,
    ["diff", "--binary", "--full-index", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color", parent, id],
    {
      signal,
    },
  );
  if (diff.status !== 0) refuse(`git diff failed (${diff.stderr.trim()})`);
  const patch = diff.stdout;
  const bytes = Buffer.byteLength(patch);
  if (bytes > maxPatchBytes)
    throw new OutpostError(
      "limit",
      `Commit ${id} changes ${bytes} bytes, over the ${maxPatchBytes}-byte limit of a replayable journal. Raise logging.maxPatchBytes, or record without replayable.`,
      { details: { commit: id, bytes, maxPatchBytes } },
    );
  if (patch.includes("\uFFFD")) refuse("its patch holds text that is not UTF-8");
  // Verified now, so that a journal never promises a commit it cannot rebuild.
  const variables = { GIT_INDEX_FILE: indexFile };
  await git(directory, ["read-tree", parent], { variables, signal });
  if (patch.length > 0) {
    const applied = await gitStatus(directory, ["apply", "--cached", "--binary", "-"], { variables, stdin: patch, signal });
    if (applied.status !== 0) refuse(`its patch does not apply to its parent (${applied.stderr.trim()})`);
  }
  const tree = await git(directory, ["write-tree"], { variables, signal });
  if (tree !== fields.tree) refuse(`its patch rebuilds tree ${tree}, not ${fields.tree}`);
  return { id, ...fields, patch };
}
