import { OutpostError, tailLines } from "@outpost/core";
import { gitStatus } from "../git/run-git.js";
import { createSandboxGit, type SandboxGitDirectory } from "../git/sandbox-git.js";
import type { Workspace } from "../workspace/workspace.js";
import type { SyncBackBudget } from "./sync-back-budget.js";
import { assertWorkObjectsWithinBudget } from "./work-object-budget.js";

/** Where the temporary repository keeps the verified tip. */
export const VERIFIED_REFERENCE = "refs/outpost/verified";

/**
 * Checks a bundle from a remote sandbox in an independent temporary repository (its own refs and config;
 * the host's objects borrowed read-only) before anything touches the host: it must hold the work branch
 * (the only ref taken from it), unpack completely, and descend from the baseline. Returns the temporary
 * repository holding the verified branch; code `workspace` otherwise. Git does not fsck a bundle's objects
 * as it reads them: they are checked when the host fetches the branch from the temporary repository
 * (applyRemoteWork). With a `budget`, what the work would unpack on the host must fit it too
 * (`assertWorkObjectsWithinBudget`, code `limit`). Three git processes in all, four with a budget.
 */
export async function verifyWorkBundle(
  workspace: Workspace,
  bundle: string,
  budget?: SyncBackBudget,
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
  // The fetch reads the bundle's header and unpacks its pack; only the work branch is taken from it, so other
  // refs a bundle may name never reach even the temporary repository's refs.
  const fetched = await gitStatus(repository.directory, [
    "fetch",
    "--quiet",
    "--no-tags",
    "--no-write-fetch-head",
    bundle,
    `+${reference}:${VERIFIED_REFERENCE}`,
  ]);
  if (fetched.status !== 0) {
    const why = tailLines(fetched.stderr, 300);
    return refuse(
      /couldn't find remote ref/i.test(why)
        ? `the bundle is unreadable or does not hold ${reference} (${why})`
        : /not a bundle|bad bundle|unrecognized header|could not open|invalid gitfile|could not read from remote|does not appear to be/i.test(
              why,
            )
          ? `the bundle is unreadable (${why})`
          : `its objects are incomplete or corrupt (${why})`,
    );
  }
  // One process answers both: the tip, and whether it is a commit that contains the baseline.
  const listed = await gitStatus(repository.directory, [
    "for-each-ref",
    "--format=%(objectname) %(objecttype)",
    `--contains=${workspace.baseline}`,
    VERIFIED_REFERENCE,
  ]);
  const [tip, type] = listed.stdout.trim().split(" ");
  if (listed.status !== 0 || tip === undefined || tip === "" || type !== "commit")
    return refuse(`its history does not descend from the baseline ${workspace.baseline.slice(0, 12)} (rewritten below it)`);
  if (budget !== undefined)
    await assertWorkObjectsWithinBudget(repository.directory, workspace.baseline, tip, budget).catch(async (error: unknown) => {
      await repository.dispose();
      throw error;
    });
  return { repository, tip };
}
