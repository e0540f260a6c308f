import { randomUUID } from "node:crypto";
import type { RecordedCommit } from "@outpost/core";
import { commitObject } from "../journal/commit-object.js";
import { shellQuote } from "../process/shell-quote.js";
import { sandboxGitConfigArguments } from "../remote/sandbox-git-command.js";

/**
 * One shell script that rebuilds a turn's commits in the sandbox: for each, the patch is applied to the private
 * index (`GIT_INDEX_FILE`, set by the caller), its tree written and its commit object written on the last rebuilt
 * one. Each prints `ok <tree> <id> <parent>` or `failed` (the patch did not apply; the index goes back to the
 * parent). One process for the turn instead of three per commit: a replay spends its time in git, not in spawning.
 */
export function rebuildScript(start: string, commits: readonly RecordedCommit[]): string {
  const git = ["git", ...sandboxGitConfigArguments()].map(shellQuote).join(" ");
  const lines = ["set -u", `g() { ${git} "$@"; }`, `parent=${shellQuote(start)}`];
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
