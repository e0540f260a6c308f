import { join, posix } from "node:path";
import type { SandboxLease } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import { objectId, sandboxGit } from "./sandbox-git-command.js";

/**
 * In the sandbox: bundles what the agent committed on the work branch since the baseline, and downloads
 * the bundle into `staging`. Returns its host path, or undefined when the branch did not move. Nothing in
 * the bundle is trusted until `verifyWorkBundle` has checked it.
 */
export async function bundleWork(
  workspace: Workspace,
  lease: SandboxLease,
  staging: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const reference = `refs/heads/${workspace.branch!}`;
  const tip = objectId(
    await sandboxGit(lease, ["rev-parse", "--verify", "--quiet", `${reference}^{commit}`], "read the work branch", { signal }),
  );
  if (tip === workspace.baseline) return undefined;
  const inside = posix.join(lease.home, ".outpost", "work.bundle");
  await lease.invoke({ executable: "mkdir", arguments: ["-p", posix.dirname(inside)], signal });
  // Without the baseline in the sandbox (history rewritten and pruned) the bundle carries the whole branch;
  // the ancestry check on the host refuses it either way.
  await sandboxGit(lease, ["bundle", "create", "--quiet", inside, reference, `^${workspace.baseline}`], "bundle the agent's commits", {
    signal,
  }).catch(() => sandboxGit(lease, ["bundle", "create", "--quiet", inside, reference], "bundle the agent's commits", { signal }));
  const host = join(staging, "work.bundle");
  await lease.download(inside, host, { signal });
  return host;
}
