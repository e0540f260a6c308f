import { OutpostError } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import type { SandboxGitDirectory } from "./sandbox-git.js";
import { git, gitStatus } from "./run-git.js";
import { shellQuote } from "../process/shell-quote.js";

/**
 * Brings the sandbox's commits into the host repository: `git fetch` from the sandbox's git directory
 * (upload-pack honours no hook or command from the repository it serves), with every received object
 * checked by fsck, into a temporary ref; then the workspace branch moves by compare-and-swap from the
 * baseline, and the worktree's index is re-read from the new HEAD (its files are the sandbox's already).
 * Returns the new tip, or undefined when the agent committed nothing.
 */
export async function importSandboxCommits(
  workspace: Workspace,
  sandbox: SandboxGitDirectory,
  dispatchId: string,
): Promise<string | undefined> {
  const { root, directory, baseline } = workspace;
  const temporary = `refs/outpost/import/${dispatchId}`;
  // The directory may belong to the container's user; git hands no `-c` to the local upload-pack it starts,
  // so the exception for it is given on upload-pack's own command line.
  const uploadPack = `git -c safe.directory=${shellQuote(sandbox.directory)} upload-pack`;
  const fetched = await gitStatus(root, [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    "--no-recurse-submodules",
    "--upload-pack",
    uploadPack,
    sandbox.directory,
    `+${sandbox.reference}:${temporary}`,
  ]);
  if (fetched.status !== 0) {
    throw new OutpostError(
      "workspace",
      `Could not import the sandbox's commits from ${sandbox.directory} (git fetch exit ${fetched.status}): ` +
        `${fetched.stderr.trim()}. The sandbox's git directory was kept there for inspection; the host repository is unchanged.`,
      {
        details: { sandboxGitDirectory: sandbox.directory, reference: sandbox.reference },
      },
    );
  }
  try {
    const tip = await git(root, ["rev-parse", "--verify", `${temporary}^{commit}`]);
    if (tip === baseline) return undefined;
    const moved = workspace.branch
      ? await gitStatus(root, ["update-ref", "-m", "outpost: commits from the sandbox", `refs/heads/${workspace.branch}`, tip, baseline])
      : await gitStatus(directory, ["update-ref", "--no-deref", "-m", "outpost: commits from the sandbox", "HEAD", tip, baseline]);
    if (moved.status !== 0) {
      throw new OutpostError(
        "conflict",
        `The sandbox committed ${tip.slice(0, 12)}, but ${workspace.branch ?? "HEAD"} moved on the host meanwhile, ` +
          `so it was not updated: ${moved.stderr.trim()}. Its commits are kept as ${temporary}: merge them with \`git merge ${temporary}\`.`,
        {
          details: { branch: workspace.branch, tip, reference: temporary },
        },
      );
    }
    // The checkout's files are what the sandbox left; only the index still describes the baseline.
    await git(directory, ["reset", "--quiet", "--mixed"]);
    await gitStatus(root, ["update-ref", "-d", temporary]);
    return tip;
  } catch (error) {
    if (!(error instanceof OutpostError && error.code === "conflict")) await gitStatus(root, ["update-ref", "-d", temporary]);
    throw error;
  }
}
