import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OutpostError, type RecordedCommit } from "@outpost/core";
import { gitScript } from "../git/run-git.js";
import { commitObject, parseCommitObject } from "./commit-object.js";

/** The commits to record: these ids, or every commit on HEAD since a baseline (oldest first). */
export type CommitSelection = readonly string[] | { readonly since: string };

/**
 * Records each commit (oldest first) with its tree, identities, dates, message and a binary patch from its
 * first parent, and proves at record time that a replay can rebuild it: the patch applied to the parent's
 * tree gives the commit's tree, and the recorded fields give back the exact commit object. A patch over
 * `maxPatchBytes` is refused with code `limit`; a commit that cannot be rebuilt with code `replay`.
 */
export async function recordCommits(
  directory: string,
  selection: CommitSelection,
  maxPatchBytes: number,
  signal?: AbortSignal,
): Promise<RecordedCommit[]> {
  const listed = "since" in selection ? undefined : [...selection];
  if (listed?.length === 0) return [];
  for (const id of listed ?? []) if (!COMMIT_ID.test(id)) refuse(id, "it is not a commit id");
  if (!listed && !COMMIT_ID.test((selection as { since: string }).since))
    throw new OutpostError("replay", `Cannot record the commits since ${JSON.stringify(selection)}: the baseline is not a commit id.`);
  const scratch = await mkdtemp(join(tmpdir(), "outpost-record-"));
  try {
    const run = await gitScript(directory, RECORD_SCRIPT, {
      variables: {
        OUTPOST_SCRATCH: scratch,
        ...(listed ? { OUTPOST_COMMITS: listed.join("\n") } : { OUTPOST_SINCE: (selection as { since: string }).since }),
      },
      ...(signal ? { signal } : {}),
      what: "recording the agent's commits",
    });
    const ids = (await readFile(join(scratch, "commits"), "utf8").catch(() => "")).split("\n").filter(Boolean);
    if (run.status === 9) throw new OutpostError("replay", `Could not list the commits to record: ${run.stderr.trim()}.`);
    const done = Number((await readFile(join(scratch, "at"), "utf8").catch(() => "0")).trim());
    if (run.status !== 0) {
      const id = ids[done - 1] ?? "(unknown)";
      refuse(id, `${FAILED_STEP[run.status] ?? `recording exited with ${run.status}`} (${run.stderr.trim()})`);
    }
    const recorded: RecordedCommit[] = [];
    for (const [index, id] of ids.entries()) recorded.push(await readRecorded(join(scratch, String(index + 1)), id, maxPatchBytes));
    return recorded;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

const COMMIT_ID = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function refuse(id: string, why: string): never {
  throw new OutpostError("replay", `Commit ${id} cannot be recorded for replay: ${why}.`, { details: { commit: id } });
}

// One process for all the commits instead of five git processes per commit: starting a process from a large
// Node process costs milliseconds, which was most of the journal's overhead. Each step's exit status names
// what failed, and `at` which commit. Every git here gets the hardened configuration ("$@") and environment,
// as the engine's other git commands; ids are checked hex (or come from rev-list), so splitting them is safe.
const RECORD_SCRIPT = [
  'if [ -n "${OUTPOST_SINCE:-}" ]; then git "$@" rev-list --reverse "$OUTPOST_SINCE..HEAD" > "$OUTPOST_SCRATCH/commits" </dev/null || exit 9;',
  'else printf "%s\\n" "$OUTPOST_COMMITS" > "$OUTPOST_SCRATCH/commits"; fi',
  "n=0",
  'for commit in $(cat "$OUTPOST_SCRATCH/commits"); do',
  'n=$((n + 1)); out="$OUTPOST_SCRATCH/$n"; echo "$n" > "$OUTPOST_SCRATCH/at"; export GIT_INDEX_FILE="$out.index"',
  'git "$@" cat-file commit "$commit" > "$out.object" </dev/null || exit 10',
  // The patch from the first parent (a root commit: from the empty tree), the way `git diff parent commit` shows it.
  'git "$@" diff-tree -p --binary --full-index --no-renames --no-ext-diff --no-textconv --no-color --no-commit-id --root ' +
    '--diff-merges=first-parent "$commit" > "$out.patch" </dev/null || exit 11',
  'git "$@" read-tree "$commit^" </dev/null 2>/dev/null || git "$@" read-tree --empty </dev/null || exit 12',
  'if [ -s "$out.patch" ]; then git "$@" apply --cached --binary "$out.patch" </dev/null || exit 13; fi',
  'git "$@" write-tree > "$out.tree" </dev/null || exit 14',
  "done",
].join("\n");

const FAILED_STEP: Readonly<Record<number, string>> = {
  10: "git cat-file failed",
  11: "git diff-tree failed",
  12: "its parent's tree could not be read",
  13: "its patch does not apply to its parent",
  14: "git write-tree failed",
};

/** Reads what the script left for one commit under `prefix` and checks it. */
async function readRecorded(prefix: string, id: string, maxPatchBytes: number): Promise<RecordedCommit> {
  const object = await readFile(`${prefix}.object`, "utf8");
  const fields =
    parseCommitObject(object) ??
    refuse(id, "it carries a signature or another header a rebuild cannot reproduce; turn commit signing off for the agent");
  if (commitObject(fields) !== object) refuse(id, "its object does not round-trip through its fields");
  const bytes = (await stat(`${prefix}.patch`)).size;
  if (bytes > maxPatchBytes)
    throw new OutpostError(
      "limit",
      `Commit ${id} changes ${bytes} bytes, over the ${maxPatchBytes}-byte limit of a replayable journal. Raise logging.maxPatchBytes, or record without replayable.`,
      { details: { commit: id, bytes, maxPatchBytes } },
    );
  const patch = await readFile(`${prefix}.patch`, "utf8");
  if (patch.includes("\uFFFD")) refuse(id, "its patch holds text that is not UTF-8");
  // Verified now, so that a journal never promises a commit it cannot rebuild.
  const tree = (await readFile(`${prefix}.tree`, "utf8")).trim();
  if (tree !== fields.tree) refuse(id, `its patch rebuilds tree ${tree}, not ${fields.tree}`);
  return { id, ...fields, patch };
}
