import { OutpostError } from "@outpost/core";

/** Starts each line of the sync-back command's stderr that names a staged gitlink. */
const MARKER = "outpost-staged-gitlink";

/**
 * Shell lines for the sync-back command, after `$tip` is known: prints `outpost-staged-gitlink <path>` on
 * stderr for each submodule entry (mode 160000) the index changes against the tip. The status the command
 * lists ignores submodules (a gitlink's checkout is a nested repository, never brought back as files; its
 * commit comes back in the bundle), so a gitlink staged but not committed would otherwise vanish unnoticed.
 */
export const STAGED_GITLINKS = `git "$@" diff-index --cached --no-renames --raw "$tip" -- 2>/dev/null |
  awk -F '\\t' '{ split($1, mode, " "); if (mode[1] == ":160000" || mode[2] == "160000") print "${MARKER} " $2 }' >&2`;

/** The paths STAGED_GITLINKS printed (as git quotes them). */
export function stagedGitlinks(stderr: string): string[] {
  const prefix = `${MARKER} `;
  return stderr
    .split("\n")
    .filter((line) => line.startsWith(prefix))
    .map((line) => line.slice(prefix.length));
}

/** The refusal of uncommitted gitlinks: they can only come back in a commit. */
export function stagedGitlinksRefused(paths: readonly string[]): OutpostError {
  const named = paths
    .slice(0, 5)
    .map((path) => JSON.stringify(path))
    .join(", ");
  return new OutpostError(
    "workspace",
    `The sandbox's uncommitted work was refused before the host worktree was touched: it stages submodule entries ` +
      `(gitlinks) it did not commit: ${named}${paths.length > 5 ? ` and ${paths.length - 5} more` : ""}. A gitlink comes back only ` +
      `in a commit: have the agent commit it, or unstage it (git rm --cached).`,
    { details: { paths: [...paths] } },
  );
}
