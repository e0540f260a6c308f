import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { git, gitStatus } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";

/**
 * The entries ignored by the `.gitignore` files committed at the baseline alone: what a remote sandbox,
 * which gets only commits, ignores too. The host's own excludes (info/exclude, a global file, uncommitted
 * `.gitignore` edits) do not count. Decided in a scratch tree holding only those files.
 */
export async function ignoredByCommittedRules(workspace: Workspace, entries: readonly string[], signal?: AbortSignal): Promise<string[]> {
  if (entries.length === 0) return [];
  const scratch = await mkdtemp(join(tmpdir(), "outpost-ignores-"));
  try {
    await git(scratch, ["init", "--quiet"], { signal });
    const listed = await git(workspace.directory, ["ls-tree", "-r", "-z", "--name-only", workspace.baseline], { signal });
    for (const path of listed.split("\0").filter((name) => name === ".gitignore" || name.endsWith("/.gitignore"))) {
      await mkdir(join(scratch, dirname(path)), { recursive: true });
      await writeFile(
        join(scratch, path),
        await git(workspace.directory, ["cat-file", "blob", `${workspace.baseline}:${path}`], { signal }),
      );
    }
    const ignored: string[] = [];
    for (const entry of entries) {
      // Directory-only patterns (`name/`) need the entry to be a directory in the scratch tree too.
      const directory = await stat(join(workspace.directory, entry)).then(
        (info) => info.isDirectory(),
        () => false,
      );
      if (directory) await mkdir(join(scratch, entry), { recursive: true });
      const checked = await gitStatus(scratch, ["check-ignore", "--no-index", "--quiet", "--", entry], {
        config: { "core.excludesFile": "/dev/null" },
        signal,
      });
      if (checked.status === 0) ignored.push(entry);
    }
    return ignored;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
