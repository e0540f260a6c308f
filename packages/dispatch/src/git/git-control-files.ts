import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Workspace } from "../workspace/workspace.js";
import { hostReadFiles, outpostParentsIntact, reclaimOutpostParents } from "../workspace/host-read-files.js";
import { gitStatus } from "./run-git.js";

/** The bytes and mode of each file that decides what git executes, by path; null where there was none. */
export type ControlSnapshot = ReadonlyMap<string, { readonly content: Buffer; readonly mode: number } | null>;

/**
 * The files through which a repository makes git run programs or read other config: config (hooks path,
 * fsmonitor, filters, includes…), hooks, info/attributes, a planted `commondir` redirecting the whole
 * repository, the worktree's `.git` file and those of other worktrees inside it. Hooks are listed as
 * found, so a new one shows as added.
 */
async function controlPaths(workspace: Workspace): Promise<string[]> {
  const [own, nested] = await Promise.all([worktreeGitDirectory(workspace), nestedWorktreeFiles(workspace)]);
  const hooks = hookPaths(workspace);
  const directories = [...new Set([workspace.commonDirectory, workspace.gitDirectory, own])];
  const paths = directories.flatMap((directory) =>
    ["config", "config.worktree", "commondir", join("info", "attributes")].map((name) => join(directory, name)),
  );
  if (workspace.directory !== workspace.root) paths.push(join(workspace.directory, ".git"));
  // Not git's, but as much code: `.outpost/.env` sets every later agent command's variables (PATH runs
  // programs), `config.json` the defaults of `outpost run` (a provider, an image). A host agent can write
  // them; a mounted one never sees them (protectedPaths), so this matters for the host placement.
  paths.push(...hostReadFiles(workspace.root));
  return [...paths, ...nested, ...hooks];
}

/**
 * The `.git` files of the repository's other worktrees inside the sandbox's directory (in `current` mode,
 * kept worktrees under `.outpost/workspaces`): rewritten, they would point the user's git there at a
 * directory of the agent's choosing.
 */
async function nestedWorktreeFiles(workspace: Workspace): Promise<string[]> {
  // A worktree created for this dispatch, named by its fresh id, can hold no other worktree: no git call needed.
  if (workspace.mode === "integrate" && workspace.created) return [];
  const listed = await gitStatus(workspace.root, ["worktree", "list", "--porcelain"]);
  const inside = `${workspace.directory}/`;
  return listed.stdout
    .split("\n")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => line.slice("worktree ".length))
    .filter((path) => path.startsWith(inside))
    .map((path) => join(path, ".git"));
}

function hookPaths(workspace: Workspace): string[] {
  const hooks = join(workspace.commonDirectory, "hooks");
  try {
    return readdirSync(hooks).map((name) => join(hooks, name));
  } catch {
    return [];
  }
}

/** Records the control files before an agent runs. */
export async function snapshotControlFiles(workspace: Workspace): Promise<ControlSnapshot> {
  const paths = await controlPaths(workspace);
  return new Map(paths.map((path) => [path, readEntry(path)]));
}

/**
 * Compares the control files with the snapshot after the agent ran, puts back every one it changed,
 * added or removed, and returns their paths (empty when nothing changed).
 */
export async function restoreControlFiles(workspace: Workspace, snapshot: ControlSnapshot): Promise<string[]> {
  const restored: string[] = [];
  // The paths found before the agent ran (never where a rewritten `.git` file points now), plus new hooks.
  const paths = [...new Set([...snapshot.keys(), ...hookPaths(workspace)])];
  // All read before anything is put back, so no restoration changes what another path reads.
  const found = paths.map((path) => readEntry(path));
  // A file read through a planted `.outpost` link may look unchanged: the link itself is the change.
  const intact = paths.map((path) => outpostParentsIntact(workspace.root, path));
  for (const [index, path] of paths.entries()) {
    const before = snapshot.get(path) ?? null;
    if (same(before, found[index]!) && intact[index]) continue;
    // A link planted on the way under `.outpost` is replaced first: rm and write never go through it.
    restored.push(...(await reclaimOutpostParents(workspace.root, path)), path);
    await rm(path, { recursive: true, force: true });
    if (before) {
      await mkdir(join(path, ".."), { recursive: true });
      await writeFile(path, before.content, { mode: before.mode });
      await chmod(path, before.mode);
    }
  }
  return restored;
}

// Read synchronously: a few dozen small files, each several times cheaper than a trip through the thread pool.
function readEntry(path: string): { content: Buffer; mode: number } | null {
  let info;
  try {
    info = lstatSync(path);
  } catch {
    // Missing, or a parent that is not a directory: no file there.
    return null;
  }
  // A link or directory where a file belongs is a change in itself: record it as unreadable content.
  if (!info.isFile()) return { content: Buffer.from(`not a file: mode ${info.mode.toString(8)}`), mode: -1 };
  return { content: readFileSync(path), mode: info.mode & 0o7777 };
}

function same(a: { content: Buffer; mode: number } | null, b: { content: Buffer; mode: number } | null): boolean {
  if (a === null || b === null) return a === b;
  return a.mode === b.mode && a.content.equals(b.content);
}

/** A linked worktree's own git directory, as its `.git` file names it before the agent runs. */
async function worktreeGitDirectory(workspace: Workspace): Promise<string> {
  if (workspace.directory === workspace.root) return workspace.gitDirectory;
  const text = await readFile(join(workspace.directory, ".git"), "utf8").catch(() => "");
  const match = /^gitdir: (.+)$/m.exec(text);
  return match?.[1]?.trim() ?? workspace.gitDirectory;
}
