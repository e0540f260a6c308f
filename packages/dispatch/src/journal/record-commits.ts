import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError, type RecordedCommit } from "@outpost/core";
import { HARDENED_GIT_VARIABLES, hardenedConfigArguments } from "../git/hardened-git.js";
import { runHostProcess } from "../process/run-host-process.js";
import { commitObject, parseCommitObject } from "./commit-object.js";

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
    for (const id of commits) recorded.push(await recordCommit(directory, id, scratch, maxPatchBytes, signal));
    return recorded;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

// Each step's exit status names what failed. One process per commit instead of five git processes: starting
// a process from a large Node process costs milliseconds of CPU, which was most of the journal's overhead.
// Every git here gets the hardened configuration ("$@") and environment, as the engine's other git commands.
const RECORD_SCRIPT = [
  'git "$@" cat-file commit "$OUTPOST_COMMIT" > "$OUTPOST_SCRATCH/object" || exit 10',
  // The patch from the first parent (a root commit: from the empty tree), the way `git diff parent commit` shows it.
  'git "$@" diff-tree -p --binary --full-index --no-renames --no-ext-diff --no-textconv --no-color --no-commit-id --root ' +
    '--diff-merges=first-parent "$OUTPOST_COMMIT" > "$OUTPOST_SCRATCH/patch" || exit 11',
  'git "$@" read-tree "$OUTPOST_COMMIT^" 2>/dev/null || git "$@" read-tree --empty || exit 12',
  'if [ -s "$OUTPOST_SCRATCH/patch" ]; then git "$@" apply --cached --binary "$OUTPOST_SCRATCH/patch" || exit 13; fi',
  'git "$@" write-tree > "$OUTPOST_SCRATCH/tree" || exit 14',
].join("\n");

const FAILED_STEP: Readonly<Record<number, string>> = {
  10: "git cat-file failed",
  11: "git diff-tree failed",
  12: "its parent's tree could not be read",
  13: "its patch does not apply to its parent",
  14: "git write-tree failed",
};

async function recordCommit(
  directory: string,
  id: string,
  scratch: string,
  maxPatchBytes: number,
  signal?: AbortSignal,
): Promise<RecordedCommit> {
  const refuse = (why: string): never => {
    throw new OutpostError("replay", `Commit ${id} cannot be recorded for replay: ${why}.`, { details: { commit: id } });
  };
  const run = await runHostProcess({
    executable: "sh",
    arguments: ["-c", RECORD_SCRIPT, "sh", ...hardenedConfigArguments()],
    directory,
    variables: {
      ...HARDENED_GIT_VARIABLES,
      GIT_INDEX_FILE: join(scratch, "index"),
      OUTPOST_COMMIT: id,
      OUTPOST_SCRATCH: scratch,
    },
    signal,
    what: `recording commit ${id}`,
  });
  if (run.status !== 0) refuse(`${FAILED_STEP[run.status] ?? `recording exited with ${run.status}`} (${run.stderr.trim()})`);
  const object = await readFile(join(scratch, "object"), "utf8");
  const fields =
    parseCommitObject(object) ??
    refuse("it carries a signature or another header a rebuild cannot reproduce; turn commit signing off for the agent");
  if (commitObject(fields) !== object) refuse("its object does not round-trip through its fields");
  const bytes = (await stat(join(scratch, "patch"))).size;
  if (bytes > maxPatchBytes)
    throw new OutpostError(
      "limit",
      `Commit ${id} changes ${bytes} bytes, over the ${maxPatchBytes}-byte limit of a replayable journal. Raise logging.maxPatchBytes, or record without replayable.`,
      { details: { commit: id, bytes, maxPatchBytes } },
    );
  const patch = await readFile(join(scratch, "patch"), "utf8");
  if (patch.includes("\uFFFD")) refuse("its patch holds text that is not UTF-8");
  // Verified now, so that a journal never promises a commit it cannot rebuild.
  const tree = (await readFile(join(scratch, "tree"), "utf8")).trim();
  if (tree !== fields.tree) refuse(`its patch rebuilds tree ${tree}, not ${fields.tree}`);
  return { id, ...fields, patch };
}
