import { OutpostError } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import type { SandboxGitDirectory } from "./sandbox-git.js";
import { gitScript } from "./run-git.js";
import { shellQuote } from "../process/shell-quote.js";

// The import script's own exit statuses, one per step that can fail.
const FETCH_FAILED = 3;
const NO_COMMIT = 4;
const BRANCH_MOVED = 5;
const RESET_FAILED = 6;

/**
 * Brings the sandbox's commits into the host repository: `git fetch` from the sandbox's git directory
 * (upload-pack honours no hook or command from the repository it serves), with every received object
 * checked by fsck, into a temporary ref; then the workspace branch moves by compare-and-swap from the
 * baseline, and the worktree's index is re-read from the new HEAD (its files are the sandbox's already).
 * The steps run as one host process (one spawn, not five). Returns the new tip, or undefined when the agent
 * committed nothing.
 */
export async function importSandboxCommits(
  workspace: Workspace,
  sandbox: SandboxGitDirectory,
  dispatchId: string,
): Promise<string | undefined> {
  const { root, baseline } = workspace;
  const temporary = `refs/outpost/import/${dispatchId}`;
  const run = await gitScript(root, importScript(workspace, sandbox, temporary), { what: "git fetch (sandbox commits)" });
  const tip = run.stdout.trim();
  const reason = run.stderr.trim();
  if (run.status === 0) return tip === baseline || tip === "" ? undefined : tip;
  if (run.status === FETCH_FAILED)
    throw new OutpostError(
      "workspace",
      `Could not import the sandbox's commits from ${sandbox.directory} (git fetch failed): ${reason}. ` +
        "The sandbox's git directory was kept there for inspection; the host repository is unchanged.",
      { details: { sandboxGitDirectory: sandbox.directory, reference: sandbox.reference } },
    );
  if (run.status === BRANCH_MOVED)
    throw new OutpostError(
      "conflict",
      `The sandbox committed ${tip.slice(0, 12)}, but ${workspace.branch ?? "HEAD"} moved on the host meanwhile, ` +
        `so it was not updated: ${reason}. Its commits are kept as ${temporary}: merge them with \`git merge ${temporary}\`.`,
      { details: { branch: workspace.branch, tip, reference: temporary } },
    );
  const step =
    run.status === NO_COMMIT ? "reading the fetched commit" : run.status === RESET_FAILED ? "re-reading the index" : "the import";
  throw new OutpostError(
    "workspace",
    `Importing the sandbox's commits failed while ${step} (exit ${run.status}): ${reason}. ` +
      `Check the repository in ${root} and retry; the branch ${workspace.branch ?? "HEAD"} was ${run.status === RESET_FAILED ? `moved to ${tip.slice(0, 12)}` : "not moved"}.`,
    { details: { sandboxGitDirectory: sandbox.directory, status: run.status, ...(tip ? { tip } : {}) } },
  );
}

/**
 * The import as an sh script run in the repository's root. It prints the fetched tip; the temporary ref
 * goes on every path but a moved branch, where it keeps the commits for the user.
 */
function importScript(workspace: Workspace, sandbox: SandboxGitDirectory, temporary: string): string {
  const { directory, baseline, branch } = workspace;
  // The directory may belong to the container's user; git hands no `-c` to the local upload-pack it starts,
  // so the exception for it is given on upload-pack's own command line.
  const uploadPack = `git -c safe.directory=${shellQuote(sandbox.directory)} upload-pack`;
  const temp = shellQuote(temporary);
  const drop = `git "$@" update-ref -d ${temp} 2>/dev/null`;
  const move = branch
    ? `git "$@" update-ref -m 'outpost: commits from the sandbox' ${shellQuote(`refs/heads/${branch}`)} "$tip" ${shellQuote(baseline)}`
    : `git "$@" -C ${shellQuote(directory)} update-ref --no-deref -m 'outpost: commits from the sandbox' HEAD "$tip" ${shellQuote(baseline)}`;
  return [
    "exec </dev/null",
    `git "$@" fetch --quiet --no-tags --no-write-fetch-head --no-recurse-submodules --upload-pack ${shellQuote(uploadPack)} ` +
      `${shellQuote(sandbox.directory)} ${shellQuote(`+${sandbox.reference}:${temporary}`)} >&2 || exit ${FETCH_FAILED}`,
    `tip=$(git "$@" rev-parse --verify ${shellQuote(`${temporary}^{commit}`)}) || { ${drop}; exit ${NO_COMMIT}; }`,
    `printf '%s\\n' "$tip"`,
    `if [ "$tip" = ${shellQuote(baseline)} ]; then ${drop}; exit 0; fi`,
    `${move} || exit ${BRANCH_MOVED}`,
    `git "$@" -C ${shellQuote(directory)} reset --quiet --mixed || { ${drop}; exit ${RESET_FAILED}; }`,
    drop,
    "exit 0",
  ].join("\n");
}
