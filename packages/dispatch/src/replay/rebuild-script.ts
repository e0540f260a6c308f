import { randomUUID } from "node:crypto";
import type { RecordedCommit } from "@outpost/core";
import { commitObject } from "../journal/commit-object.js";
import { shellQuote } from "../process/shell-quote.js";
import { sandboxGitConfigArguments } from "../remote/sandbox-git-command.js";
import { fastRebuild } from "./fast-rebuild.js";

/** Where a turn's rebuild starts: from HEAD with a fresh private index (the first turn), or where the last one stopped. */
export type RebuildStart = { readonly index: string; readonly head: string } | { readonly indexName: string };

/**
 * The shell function every line of the replay's scripts runs git through: no hook or fsmonitor the sandbox set,
 * and no automatic maintenance started after the fast-forward (the user's own git does that).
 */
export function gitFunction(): string {
  const config = sandboxGitConfigArguments({ "maintenance.auto": "false", "gc.auto": "0" });
  return `g() { ${["git", ...config].map(shellQuote).join(" ")} "$@"; }`;
}

/**
 * One shell script that rebuilds a turn's commits in the sandbox: for each, the patch is applied to the private
 * index (`GIT_INDEX_FILE`), its tree written and its commit object written on the last rebuilt one; the scratch
 * ref then names the last. The first turn's script first prints `start <HEAD> <index path>`; then each commit
 * prints `ok <tree> <id> <parent>` or `failed` (its patch did not apply; the index goes back to the parent).
 * One process for the turn: a replay spends its time in git, not in starting processes.
 *
 * With `fast`, when `fastRebuild` can do the turn, the script does only that (a few git processes for the whole
 * turn) and prints `fast` and each commit's id, or `again` when it failed: the caller then asks for the rebuild
 * commit by commit (which starts by putting the index back at the parent's tree).
 */
export function rebuildScript(start: RebuildStart, ref: string, commits: readonly RecordedCommit[], fast = true): string {
  const lines = ["set -u", gitFunction()];
  if ("indexName" in start)
    lines.push(
      // One git process for both lines: the git directory (it may hold a line break), then HEAD's commit.
      "found=$(g rev-parse --absolute-git-dir --verify 'HEAD^{commit}') || exit 4",
      "nl='\n'",
      'gitdir=${found%"$nl"*}',
      'parent=${found##*"$nl"}',
      `GIT_INDEX_FILE="$gitdir/"${shellQuote(start.indexName)}; export GIT_INDEX_FILE`,
      'g read-tree "$parent" || exit 3',
      'echo "start $parent $GIT_INDEX_FILE"',
    );
  else
    lines.push(
      `GIT_INDEX_FILE=${shellQuote(start.index)}; export GIT_INDEX_FILE`,
      `parent=${shellQuote(start.head)}`,
      // The index holds the last kept commit's tree, whatever an earlier try left in it.
      'g read-tree "$parent" || exit 3',
    );
  const quick = fast ? fastRebuild(ref, commits) : undefined;
  // Commit by commit only when asked: the patches travel once per script (a remote sandbox receives them).
  if (quick) {
    lines.push(quick, "if fast", "then", "  echo fast", "  printf '%s\\n' \"$ids\"", "else", "  echo again", "fi");
    return `${lines.join("\n")}\n`;
  }
  for (const commit of commits) {
    const token = `OUTPOST_${randomUUID().replaceAll("-", "")}`;
    // Everything after the tree and first parent, exactly as the object holds it.
    const rest = commitObject({ ...commit, tree: "-", parents: commit.parents.slice(1) }).slice("tree -\n".length);
    const apply =
      commit.patch.length > 0
        ? `g apply --cached --binary --whitespace=nowarn - <<'${token}P'\n${withNewline(commit.patch)}${token}P`
        : ":";
    lines.push(
      `if ${apply}`,
      "then",
      "  tree=$(g write-tree) || exit 3",
      `  id=$(${commitInput(rest, token)}) || exit 3`,
      '  echo "ok $tree $id $parent"',
      "  parent=$id",
      "else",
      "  echo failed",
      '  g read-tree "$parent" || exit 3',
      "fi",
    );
  }
  lines.push(`g update-ref ${shellQuote(ref)} "$parent" || exit 3`);
  return `${lines.join("\n")}\n`;
}

/**
 * hash-object reading the commit object: from an expanding heredoc (no process but git) when the object ends
 * with a newline, as git's own commits do, its `\\`, `$` and backquotes escaped; else assembled by printf.
 */
function commitInput(rest: string, token: string): string {
  if (rest.endsWith("\n"))
    return `g hash-object -t commit -w --stdin <<${token}M\ntree $tree\nparent $parent\n${rest.replace(/[\\$`]/g, "\\$&")}${token}M\n`;
  return `{ printf 'tree %s\\nparent %s\\n' "$tree" "$parent"; printf '%s' ${shellQuote(rest)}; } | g hash-object -t commit -w --stdin`;
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/**
 * The script that ends a replay: with `land`, the branch and work tree move to `head` by fast-forward (git
 * refuses before writing anything when a local change or an untracked file is in the way; it prints
 * `refused <why>`); either way the scratch ref and the private index go.
 */
export function finishScript(ref: string, index: string, land: string | undefined): string {
  const lines = ["set -u", gitFunction()];
  if (land) lines.push(`if ! out=$(g merge --ff-only --quiet ${shellQuote(land)} 2>&1); then printf 'refused %s\\n' "$out"; fi`);
  lines.push(`g update-ref -d ${shellQuote(ref)} 2>/dev/null`, `rm -f ${shellQuote(index)}`, "exit 0");
  return `${lines.join("\n")}\n`;
}
