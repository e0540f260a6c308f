import { lchown, lstat, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { OutpostError, type SandboxGit } from "@outpost/core";
import type { GitBoundary } from "../git/git-boundary.js";
import { restoreControlFiles, snapshotControlFiles } from "../git/git-control-files.js";
import { importSandboxCommits } from "../git/import-sandbox-commits.js";
import { createSandboxGit, fillSandboxGit, type SandboxGitDirectory } from "../git/sandbox-git.js";
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
 * are removed without following links and replaced (refill); the directory itself stays, as the mounts need.
 */
export async function holdSandboxGit(workspace: Workspace): Promise<HeldGit> {
  const made = await createSandboxGit(workspace);
  const git: SandboxGit = { directory: made.directory, objects: made.objects };
  return {
    context: { gitDirectories: [], git },
    boundary: async (working) => {
      const snapshot = await snapshotControlFiles(working);
      const filled = { ...(await refill(made.directory, working)), directory: made.directory };
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

/**
 * Fills a directory of the host's own beside it, then moves each entry in by rename after removing what was
 * there: nothing is ever written through a path the sandbox could have made a link (rename replaces a link
 * and never follows it; a directory that reappeared meanwhile makes it fail, as it should).
 */
async function refill(directory: string, working: Workspace): Promise<SandboxGitDirectory> {
  const owner = await lstat(directory);
  const fresh = await mkdtemp(join(dirname(directory), "outpost-sandbox-git-fill-"));
  try {
    const filled = await fillSandboxGit(fresh, working);
    // The lease user owns the directory (the provider gave it to them): what the host writes becomes theirs too.
    if (process.getuid?.() === 0 && owner.uid !== 0) await giveTree(fresh, owner.uid, owner.gid);
    for (const name of await readdir(directory)) if (!KEPT.has(name)) await rm(join(directory, name), { recursive: true, force: true });
    try {
      for (const name of await readdir(fresh)) await rename(join(fresh, name), join(directory, name));
    } catch (cause) {
      throw new OutpostError(
        "workspace",
        `The warm sandbox's git directory ${directory} could not be refilled for the next dispatch (${(cause as Error).message}): ` +
          "something in the sandbox writes it between operations. Close the sandbox and create another.",
        { cause, details: { directory } },
      );
    }
    return filled;
  } finally {
    await rm(fresh, { recursive: true, force: true });
  }
}

async function giveTree(directory: string, uid: number, gid: number): Promise<void> {
  for (const name of await readdir(directory, { recursive: true })) await lchown(join(directory, name), uid, gid);
}
