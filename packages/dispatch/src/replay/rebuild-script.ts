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
    // Everything after the tree and first parent, exactly as the object holds it; the heredoc's own newline is cut off.
    const rest = commitObject({ ...commit, tree: "-", parents: commit.parents.slice(1) }).slice("tree -\n".length);
    const apply =
      commit.patch.length > 0
        ? [`g apply --cached --binary --whitespace=nowarn - <<'${token}P'`, withNewline(commit.patch), `${token}P`]
        : [":"];
    lines.push(
      `if ${apply.join("\n")}`,
      "then",
      "  tree=$(g write-tree) || exit 3",
      `  id=$( { printf 'tree %s\\nparent %s\\n' "$tree" "$parent"; head -c ${Buffer.byteLength(rest)} <<'${token}M'`,
      withNewline(rest) + `${token}M`,
      "  } | g hash-object -t commit -w --stdin) || exit 3",
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

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
