import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import type { SandboxGit } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import { git } from "./run-git.js";

/** The sandbox's own git directory and what the engine needs to import from it. */
export interface SandboxGitDirectory extends SandboxGit {
  /** The ref the agent commits to in it: `refs/heads/<branch>`, or `HEAD` on a detached checkout. */
  readonly reference: string;
  dispose(): Promise<void>;
}

/**
 * Makes a private git directory for a sandbox that works on `workspace`: HEAD on the same branch at the
 * baseline, a copy of the worktree's index, and the host's objects borrowed read-only as an alternate.
 * Nothing of the host's git directory (config, hooks, info, other refs) is in it, so nothing the sandbox
 * writes there can ever run on the host; its commits come back through `importSandboxCommits`.
 */
export async function createSandboxGit(workspace: Workspace): Promise<SandboxGitDirectory> {
  const directory = await mkdtemp(join(tmpdir(), "outpost-sandbox-git-"));
  try {
    return await fillSandboxGit(directory, workspace);
  } catch (error) {
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Writes a private git directory for `workspace` into the empty `directory` (see createSandboxGit). A warm
 * sandbox refills its mounted one this way before each dispatch, so each starts at its own baseline.
 */
export async function fillSandboxGit(directory: string, workspace: Workspace): Promise<SandboxGitDirectory> {
  const [format, index] = (await git(workspace.directory, ["rev-parse", "--show-object-format", "--git-path", "index"])).split("\n") as [
    string,
    string,
  ];
  const objects = join(workspace.commonDirectory, "objects");
  const reference = workspace.branch ? `refs/heads/${workspace.branch}` : "HEAD";
  await mkdir(join(directory, "objects", "info"), { recursive: true });
  await mkdir(join(directory, "objects", "pack"));
  await mkdir(join(directory, "refs", "tags"), { recursive: true });
  await writeFile(join(directory, "objects", "info", "alternates"), `${objects}\n`);
  const extensions = format === "sha1" ? "" : `[extensions]\n\tobjectFormat = ${format}\n`;
  const version = format === "sha1" ? 0 : 1;
  await writeFile(
    join(directory, "config"),
    `[core]\n\trepositoryformatversion = ${version}\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n${extensions}`,
  );
  if (workspace.branch) {
    const refPath = join(directory, ...reference.split("/"));
    await mkdir(join(refPath, ".."), { recursive: true });
    await writeFile(refPath, `${workspace.baseline}\n`);
    await writeFile(join(directory, "HEAD"), `ref: ${reference}\n`);
  } else {
    await writeFile(join(directory, "HEAD"), `${workspace.baseline}\n`);
  }
  const indexPath = isAbsolute(index) ? index : resolve(workspace.directory, index);
  await copyFile(indexPath, join(directory, "index")).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "ENOENT") throw error;
    await git(workspace.directory, ["read-tree", workspace.baseline], { variables: { GIT_INDEX_FILE: join(directory, "index") } });
  });
  return { directory, objects: [objects], reference, dispose: () => rm(directory, { recursive: true, force: true }) };
}
