import { OutpostError } from "@outpost/core";
import { gitStatus } from "../git/run-git.js";
import { createSandboxGit, type SandboxGitDirectory } from "../git/sandbox-git.js";
import type { Workspace } from "../workspace/workspace.js";

/** Where the temporary repository keeps the verified tip. */
export const VERIFIED_REFERENCE = "refs/outpost/verified";

/**
 * Checks a bundle from a remote sandbox in an independent temporary repository (its own refs and config;
 * the host's objects borrowed read-only) before anything touches the host: it must name exactly the work
 * branch, unpack completely with every object checked by fsck, and descend from the baseline. Returns the
 * temporary repository holding the verified branch; code `workspace` otherwise.
 */
export async function verifyWorkBundle(
  workspace: Workspace,
  bundle: string,
): Promise<{ readonly repository: SandboxGitDirectory; readonly tip: string }> {
  const reference = `refs/heads/${workspace.branch!}`;
  const repository = await createSandboxGit(workspace);
  const refuse = async (why: string): Promise<never> => {
    await repository.dispose();
    throw new OutpostError(
      "workspace",
      `The sandbox's work was refused before the host was touched: ${why}. The host repository is unchanged.`,
      {
        details: { bundle, branch: workspace.branch },
      },
    );
  };
  const heads = await gitStatus(repository.directory, ["bundle", "list-heads", bundle]);
  const listed = heads.stdout.trim().split("\n").filter(Boolean);
  if (heads.status !== 0 || listed.length !== 1 || !listed[0]!.endsWith(` ${reference}`))
    return refuse(
      `the bundle is unreadable or does not hold exactly ${reference} (${heads.stderr.trim().slice(-300) || listed.join(", ")})`,
    );
  const fetched = await gitStatus(repository.directory, [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    bundle,
    `+${reference}:${VERIFIED_REFERENCE}`,
  ]);
  if (fetched.status !== 0) return refuse(`its objects are incomplete or corrupt (${fetched.stderr.trim().slice(-300)})`);
  const tip = (await gitStatus(repository.directory, ["rev-parse", "--verify", `${VERIFIED_REFERENCE}^{commit}`])).stdout.trim();
  const descends = await gitStatus(repository.directory, ["merge-base", "--is-ancestor", workspace.baseline, tip]);
  if (descends.status !== 0)
    return refuse(`its history does not descend from the baseline ${workspace.baseline.slice(0, 12)} (rewritten below it)`);
  return { repository, tip };
}
