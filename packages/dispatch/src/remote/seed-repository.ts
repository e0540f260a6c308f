import { stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxLease } from "@outpost/core";
import { git } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { verifiedAncestors } from "./verified-ancestors.js";
import { sandboxGit } from "./sandbox-git-command.js";

export interface Seeded {
  /** Bytes of the bundle sent into the sandbox (0 when it already held the baseline). */
  readonly bytes: number;
  /** True when the bundle was a delta over commits the sandbox already held. */
  readonly delta: boolean;
}

/** Where the sandbox keeps what it was seeded with: a later seed may send only what is newer. */
export const SEEDED_REFERENCE = "refs/outpost/seeded";

/**
 * Seeds a remote sandbox with the work branch as a git bundle, checked out at the dispatch's baseline.
 * Only the work branch travels: no config, hooks or other refs of the host repository. When the sandbox
 * (a persistent root, or a retained sandbox) already holds commits the host verifies as ancestors of the
 * baseline, the bundle is a delta over them; git refuses it in the sandbox if those commits are not there.
 */
export async function seedRepository(workspace: Workspace, lease: SandboxLease, staging: string, signal?: AbortSignal): Promise<Seeded> {
  const branch = workspace.branch;
  if (!branch) throw new OutpostError("configuration", "A remote sandbox needs a work branch. Use branch mode named or integrate.");
  await sandboxGit(lease, ["init", "--quiet"], "initialize the repository", { signal });
  const held = await verifiedAncestors(workspace, lease, signal);
  // A sandbox repository that claimed commits it does not hold, or is broken, starts over with the whole branch.
  const seeded = await sendMissing(workspace, lease, staging, held, signal).catch(async () => {
    await lease.invoke({ executable: "rm", arguments: ["-rf", posix.join(lease.root, ".git")], signal });
    await sandboxGit(lease, ["init", "--quiet"], "initialize the repository", { signal });
    return sendMissing(workspace, lease, staging, [], signal);
  });
  // Forced, and cleaned of untracked files: a persistent root may hold a previous agent's leftovers
  // (ignored files such as dependency caches stay).
  await sandboxGit(lease, ["checkout", "--quiet", "--force", "-B", branch, SEEDED_REFERENCE], "check out the work branch", { signal });
  await sandboxGit(lease, ["clean", "--quiet", "-d", "--force", "--force"], "clean the work tree", { signal });
  const head = await sandboxGit(lease, ["rev-parse", "HEAD"], "read the seeded HEAD", { signal });
  if (head !== workspace.baseline)
    throw new OutpostError(
      "workspace",
      `The seeded sandbox is at ${head.slice(0, 12)}, not at the baseline ${workspace.baseline.slice(0, 12)}.`,
    );
  return seeded;
}

/**
 * Sends the work branch minus what the sandbox holds as a bundle, fetched into SEEDED_REFERENCE; nothing
 * when it holds the baseline itself.
 */
async function sendMissing(
  workspace: Workspace,
  lease: SandboxLease,
  staging: string,
  held: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Seeded> {
  if (held.includes(workspace.baseline)) {
    await sandboxGit(lease, ["update-ref", SEEDED_REFERENCE, `${workspace.baseline}^{commit}`], "record the seeded commit", { signal });
    return { bytes: 0, delta: true };
  }
  const bundle = join(staging, "seed.bundle");
  const exclusions = held.map((commit) => `^${commit}`);
  await git(workspace.directory, ["bundle", "create", "--quiet", bundle, `refs/heads/${workspace.branch!}`, ...exclusions], { signal });
  const bytes = (await stat(bundle)).size;
  const target = posix.join(lease.home, ".outpost", "seed.bundle");
  await lease.upload(bundle, target, { signal });
  try {
    await sandboxGit(
      lease,
      ["fetch", "--quiet", "--no-tags", target, `+refs/heads/${workspace.branch!}:${SEEDED_REFERENCE}`],
      "fetch the seed bundle",
      {
        signal,
      },
    );
  } finally {
    await lease.invoke({ executable: "rm", arguments: ["-f", target], signal });
  }
  return { bytes, delta: held.length > 0 };
}
