import { posix } from "node:path";
import type Docker from "dockerode";
import type { SandboxContext } from "@outpost/core";
import { scanHostTree, type HostTreeEntry } from "@outpost/plugin-utils";
import { packHostEntries } from "@outpost/plugin-utils";

/**
 * Isolated mode: copies the worktree to the lease root, and the git directories it needs to their own
 * paths, as one tar stream extracted by the engine into the created container, owned by the lease user.
 * Refusals (absolute or escaping links, special files) happen while scanning, before the container is touched.
 */
export async function copyWorktreeIn(
  container: Docker.Container,
  context: SandboxContext,
  root: string,
  owner: { uid: number; gid: number },
  check: () => void,
): Promise<void> {
  const entries: HostTreeEntry[] = [];
  const names = new Map<HostTreeEntry, string>();
  const place = async (hostDirectory: string, sandboxDirectory: string, skipDotGit = false) => {
    const inside = sandboxDirectory.replace(/^\/+/, "");
    // Only the directory itself is given to the user: missing parents are created by the engine (root,
    // 0755), and existing ones such as /tmp keep their owner and mode.
    const directory: HostTreeEntry = { path: inside, kind: "directory", mode: 0o755, size: 0, mtime: new Date(), source: "" };
    entries.push(directory);
    names.set(directory, `${inside}/`);
    const tree = await scanHostTree(hostDirectory, check);
    for (const entry of tree.entries) {
      if (skipDotGit && (entry.path === ".git" || entry.path.startsWith(".git/"))) continue;
      entries.push(entry);
      names.set(entry, posix.join(inside, entry.path) + (entry.kind === "directory" ? "/" : ""));
    }
  };
  // With a private git directory, it becomes the root's .git and the borrowed objects are copied too.
  await place(context.directory, root, context.git !== undefined);
  if (context.git) {
    await place(context.git.directory, posix.join(root, ".git"));
    for (const objects of context.git.objects) await place(objects, objects);
  }
  for (const directory of context.gitDirectories) {
    const base = context.directory.endsWith("/") ? context.directory : `${context.directory}/`;
    if (directory !== context.directory && !directory.startsWith(base)) await place(directory, directory);
  }
  const { archive, finished } = packHostEntries(entries, { name: (entry) => names.get(entry)!, uid: owner.uid, gid: owner.gid, check });
  await Promise.all([container.putArchive(archive as unknown as NodeJS.ReadableStream, { path: "/" }), finished]);
}
