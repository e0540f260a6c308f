import { stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxLease } from "@outpost/core";
import { git } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { sandboxGit } from "./sandbox-git-command.js";

export interface Seeded {
  /** Bytes of the bundle sent into the sandbox. */
  readonly bytes: number;
}

/**
 * Seeds a remote sandbox with the work branch as a git bundle, checked out at the dispatch's baseline.
 * Only the work branch travels: no config, hooks or other refs of the host repository.
 */
export async function seedRepository(workspace: Workspace, lease: SandboxLease, staging: string, signal?: AbortSignal): Promise<Seeded> {
  const branch = workspace.branch;
  if (!branch) throw new OutpostError("configuration", "A remote sandbox needs a work branch. Use branch mode named or integrate.");
  const bundle = join(staging, "seed.bundle");
  await git(workspace.directory, ["bundle", "create", "--quiet", bundle, `refs/heads/${branch}`], { signal });
  const { size } = await stat(bundle);
  const target = posix.join(lease.home, ".outpost", "seed.bundle");
  await lease.upload(bundle, target, { signal });
  await sandboxGit(lease, ["init", "--quiet"], "initialize the repository", { signal });
  await sandboxGit(
    lease,
    ["fetch", "--quiet", "--no-tags", target, `+refs/heads/${branch}:refs/heads/${branch}`],
    "fetch the seed bundle",
    {
      signal,
    },
  );
  await sandboxGit(lease, ["checkout", "--quiet", branch], "check out the work branch", { signal });
  const head = await sandboxGit(lease, ["rev-parse", "HEAD"], "read the seeded HEAD", { signal });
  if (head !== workspace.baseline)
    throw new OutpostError(
      "workspace",
      `The seeded sandbox is at ${head.slice(0, 12)}, not at the baseline ${workspace.baseline.slice(0, 12)}.`,
    );
  await lease.invoke({ executable: "rm", arguments: ["-f", target], signal });
  return { bytes: size };
}
