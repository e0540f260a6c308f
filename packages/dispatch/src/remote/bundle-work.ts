import { stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxLease } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import { objectId, sandboxGit } from "./sandbox-git-command.js";

/**
 * In the sandbox: bundles what the agent committed on the work branch since the baseline, and downloads
 * the bundle into `staging`. Returns its host path, or undefined when the branch did not move. A bundle
 * over `maxBytes` is refused (code `workspace`) before it is downloaded, and again after if the sandbox
 * lied about its size. Nothing in the bundle is trusted until `verifyWorkBundle` has checked it.
 */
export async function bundleWork(
  workspace: Workspace,
  lease: SandboxLease,
  staging: string,
  maxBytes: number,
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
  const counted = await lease.invoke({ executable: "sh", arguments: ["-c", 'wc -c < "$1"', "sh", inside], signal });
  const claimed = Number(counted.stdout.trim());
  if (counted.status !== 0 || !Number.isSafeInteger(claimed)) throw tooLarge(workspace, undefined, maxBytes);
  if (claimed > maxBytes) throw tooLarge(workspace, claimed, maxBytes);
  const host = join(staging, "work.bundle");
  await lease.download(inside, host, { signal });
  const { size } = await stat(host);
  if (size > maxBytes) throw tooLarge(workspace, size, maxBytes);
  return host;
}

function tooLarge(workspace: Workspace, bytes: number | undefined, maxBytes: number): OutpostError {
  return new OutpostError(
    "workspace",
    `The sandbox's work was refused before the host was touched: its bundle is ${bytes === undefined ? "of unknown size" : `${bytes} bytes`}, ` +
      `over the limit of ${maxBytes} bytes (limits.bundleBytes). The host repository is unchanged; raise limits.bundleBytes if the work is really that large.`,
    { details: { bytes, maxBytes, branch: workspace.branch } },
  );
}
