import { OutpostError, tailLines } from "@outpost/core";
import { gitStatus } from "../git/run-git.js";
import { createSandboxGit, type SandboxGitDirectory } from "../git/sandbox-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { VERIFIED_REFERENCE } from "./verify-work-bundle.js";

/**
 * Checks every object a verified bundle brought with git's fsck, for work that is kept without being applied
 * (a rescue): git reads a bundle without checking its objects, and applying would have checked them on the
 * way into the host. The verified branch is fetched into a throwaway repository (the host's objects
 * borrowed read-only), which checks each object it receives; code `workspace` when one fails.
 */
export async function checkWorkObjects(workspace: Workspace, verified: { readonly repository: SandboxGitDirectory }): Promise<void> {
  const scratch = await createSandboxGit(workspace);
  try {
    const fetched = await gitStatus(scratch.directory, [
      "fetch",
      "--quiet",
      "--no-tags",
      "--no-write-fetch-head",
      verified.repository.directory,
      VERIFIED_REFERENCE,
    ]);
    if (fetched.status !== 0)
      throw new OutpostError(
        "workspace",
        `The sandbox's work was refused: its objects fail git's checks (${tailLines(fetched.stderr, 300)}). Nothing of it was kept.`,
        { details: { branch: workspace.branch, refused: true } },
      );
  } finally {
    await scratch.dispose();
  }
}
