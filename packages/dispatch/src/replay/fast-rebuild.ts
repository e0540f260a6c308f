import { createHash, randomUUID } from "node:crypto";
import type { RecordedCommit, RecordedIdentity } from "@outpost/core";
import { commitObject } from "../journal/commit-object.js";
import { shellQuote } from "../process/shell-quote.js";
import { patchChanges, type FileChange } from "./patch-changes.js";

/**
 * The fast way to rebuild a turn's commits, as a shell function `fast` (for `rebuildScript`): one `git apply
 * --cached` of all the patches writes every blob they make, and must give the last recorded tree;
 * `cat-file --batch-check` checks that each blob the patches name now exists; one `git fast-import` writes the trees and commits from those blobs, on the recorded
 * parent, and points the scratch ref at the last; it prints each commit's id. A handful of git processes for the
 * turn, where rebuilding commit by commit takes three per commit (the replay bench: against `git am`).
 *
 * Only for commits it can rebuild exactly: one parent, fields that hash to the recorded id (so an id found equal
 * to it means tree, parent and fields are the recorded ones), identities fast-import writes as git does, and a
 * patch whose headers say each file's blob. Undefined otherwise; the caller then rebuilds commit by commit. When
 * `fast` fails, it returns 1 and the script rebuilds commit by commit too; its output is checked by the caller.
 */
export function fastRebuild(ref: string, commits: readonly RecordedCommit[]): string | undefined {
  if (commits.length === 0) return undefined;
  const changes: FileChange[][] = [];
  for (const commit of commits) {
    const read = exact(commit) ? patchChanges(commit.patch) : undefined;
    if (!read) return undefined;
    changes.push(read);
  }
  const token = `OUTPOST_${randomUUID().replaceAll("-", "")}`;
  const patches = commits.map((commit) => commit.patch).filter((patch) => patch.length > 0);
  const blobs = [
    ...new Set(changes.flat().flatMap((change) => (change.kind === "modify" && change.mode !== "160000" ? [change.blob] : []))),
  ];
  const lines = ["fast() {", `  [ "$parent" = ${shellQuote(commits[0]!.parents[0]!)} ] || return 1`];
  if (patches.length > 0)
    lines.push(`  g apply --cached --binary --whitespace=nowarn - <<'${token}P' || return 1`, ...patches.map(chomp), `${token}P`);
  // The patches as they applied give the last recorded tree (a patch whose content differs from its header does not).
  lines.push(`  [ "$(g write-tree)" = ${shellQuote(commits.at(-1)!.tree)} ] || return 1`);
  if (blobs.length > 0)
    lines.push(
      `  checked=$(g cat-file --batch-check='%(objecttype)' <<'${token}B'`,
      ...blobs,
      `${token}B`,
      "  ) || return 1",
      // Each a blob git holds: else fast-import would stop, and leave a crash report in the git directory.
      `  [ "$checked" = ${shellQuote(blobs.map(() => "blob").join("\n"))} ] || return 1`,
    );
  lines.push(
    // The turn's trees and commits stay one pack (git's own storage; its gc merges packs): unpacking them into
    // loose objects, as fast-import does below 100 objects, takes a second process and most of the time (measured).
    `  ids=$(g -c fastimport.unpackLimit=0 fast-import --quiet --force --done <<'${token}F'`,
    stream(ref, commits, changes),
    `${token}F`,
    "  ) || return 1",
    "}",
  );
  return lines.join("\n");
}

/** What fast-import reads: each commit with its recorded fields on the one before, then `get-mark` for its id. */
function stream(ref: string, commits: readonly RecordedCommit[], changes: readonly FileChange[][]): string {
  const lines: string[] = [];
  for (const [position, commit] of commits.entries()) {
    const mark = position + 1;
    lines.push(
      `commit ${ref}`,
      `mark :${mark}`,
      `author ${identity(commit.author)}`,
      `committer ${identity(commit.committer)}`,
      `data ${Buffer.byteLength(commit.message, "utf8")}`,
      commit.message,
      `from ${position === 0 ? commit.parents[0]! : `:${position}`}`,
      ...changes[position]!.map((change) =>
        change.kind === "delete" ? `D ${change.path}` : `M ${change.mode} ${change.blob} ${change.path}`,
      ),
      "",
      `get-mark :${mark}`,
    );
  }
  lines.push("done");
  return lines.join("\n");
}

/** True when fast-import writes this commit byte for byte as recorded, and the recorded fields hash to its id. */
function exact(commit: RecordedCommit): boolean {
  if (commit.parents.length !== 1 || !usable(commit.author) || !usable(commit.committer)) return false;
  const object = Buffer.from(commitObject(commit), "utf8");
  const hash = createHash(commit.id.length === 64 ? "sha256" : "sha1")
    .update(`commit ${object.length}\0`)
    .update(object)
    .digest("hex");
  return hash === commit.id;
}

/** An identity fast-import takes and writes unchanged: a name, no line break, a raw date git accepts. */
function usable(person: RecordedIdentity): boolean {
  const zone = /^\d+ [+-](\d{4})$/.exec(person.date);
  return (
    person.name.trim() === person.name &&
    person.name !== "" &&
    !/[<>\n]/.test(person.name + person.email) &&
    zone !== null &&
    Number(zone[1]) < 1400
  );
}

function identity(person: RecordedIdentity): string {
  return `${person.name} <${person.email}> ${person.date}`;
}

/** A patch as lines of the heredoc: its final newline is the line break after it. */
function chomp(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}
