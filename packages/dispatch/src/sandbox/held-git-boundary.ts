import { lchown, lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { SandboxGit } from "@outpost/core";
import type { GitBoundary } from "../git/git-boundary.js";
import { restoreControlFiles, snapshotControlFiles } from "../git/git-control-files.js";
import { importSandboxCommits } from "../git/import-sandbox-commits.js";
import { createSandboxGit, fillSandboxGit } from "../git/sandbox-git.js";
import type { Workspace } from "../workspace/workspace.js";

/** The `.git` file the Docker provider writes into the directory and binds as the root's `.git`: kept on refill. */
const KEPT = new Set(["outpost-sandbox.gitfile"]);

/** A mounted warm sandbox's private git directory: made once, then one boundary per dispatch over it. */
export interface HeldGit {
  /** What the lease is acquired with. */
  readonly context: Pick<GitBoundary["context"], "gitDirectories" | "git">;
  /** The boundary of one dispatch: the directory refilled at that dispatch's baseline, its commits imported at the end. */
  boundary(workspace: Workspace): Promise<GitBoundary>;
  dispose(): Promise<void>;
}

/**
 * Why refill rather than keep: the lease's mounts name this directory once, but each dispatch starts at its
 * own baseline (the host branch may have moved: an integration, the user's commit), and whatever the sandbox
 * wrote there since (refs, hooks, config, links) must not outlive the dispatch that imported it. The contents
 * are removed without following links and written again; the directory itself stays, as the mounts need.
 */
export async function holdSandboxGit(workspace: Workspace): Promise<HeldGit> {
  const made = await createSandboxGit(workspace);
  const git: SandboxGit = { directory: made.directory, objects: made.objects };
  return {
    context: { gitDirectories: [], git },
    boundary: async (working) => {
      const snapshot = await snapshotControlFiles(working);
      const owner = await lstat(made.directory);
      for (const name of await readdir(made.directory))
        if (!KEPT.has(name)) await rm(join(made.directory, name), { recursive: true, force: true });
      const filled = await fillSandboxGit(made.directory, working);
      // The lease user owns the directory (the provider gave it to them): what the host writes becomes theirs too.
      if (process.getuid?.() === 0 && owner.uid !== 0) await giveTree(made.directory, owner.uid, owner.gid);
      return {
        context: { gitDirectories: [], git },
        close: async (dispatchId) => {
          const restored = await restoreControlFiles(working, snapshot);
          await importSandboxCommits(working, filled, dispatchId);
          return { restored };
        },
        dispose: async () => undefined,
      };
    },
    dispose: made.dispose,
  };
}

async function giveTree(directory: string, uid: number, gid: number): Promise<void> {
  for (const name of await readdir(directory, { recursive: true })) await lchown(join(directory, name), uid, gid);
}
