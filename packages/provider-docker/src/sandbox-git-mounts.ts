import { lchown, lstat, readdir, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxGit } from "@outpost/core";

/** Name of the `.git` file, inside the private git directory, that points the root at it. */
const GITFILE = "outpost-sandbox.gitfile";

/**
 * The binds that give a mounted lease its private git directory (`context.git`) as the root's `.git`,
 * and the host objects it borrows read-only. The host's own `.git` (a directory in a main checkout, a
 * file in a linked worktree) is covered, never written: a directory by the private one, a file by a
 * read-only `.git` file naming the private one. The directory is given to the lease user.
 */
export async function sandboxGitBinds(
  git: SandboxGit,
  hostDirectory: string,
  root: string,
  user: { uid: number; gid: number },
): Promise<string[]> {
  const dotGit = await lstat(join(hostDirectory, ".git")).catch(() => undefined);
  if (!dotGit || (!dotGit.isDirectory() && !dotGit.isFile())) {
    throw new OutpostError(
      "workspace",
      `${hostDirectory} has no .git file or directory to cover with the sandbox's git directory. Pass a git worktree as the context directory.`,
      { details: { directory: hostDirectory } },
    );
  }
  const binds = git.objects.map((objects) => `${objects}:${objects}:ro`);
  const target = posix.join(root, ".git");
  if (dotGit.isDirectory()) {
    binds.push(`${git.directory}:${target}`);
  } else {
    await writeFile(join(git.directory, GITFILE), `gitdir: ${git.directory}\n`);
    binds.push(`${git.directory}:${git.directory}`, `${join(git.directory, GITFILE)}:${target}:ro`);
  }
  if (process.getuid?.() === 0 && user.uid !== 0) await giveTree(git.directory, user);
  return binds;
}

async function giveTree(directory: string, user: { uid: number; gid: number }): Promise<void> {
  await lchown(directory, user.uid, user.gid);
  for (const name of await readdir(directory, { recursive: true })) await lchown(join(directory, name), user.uid, user.gid);
}
