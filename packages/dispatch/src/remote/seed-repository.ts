import { stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxLease } from "@outpost/core";
import { git } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { HELD_REFS_ARGS, verifiedAncestors } from "./verified-ancestors.js";
import { sandboxGitSteps, type SandboxGitStep } from "./sandbox-git-steps.js";

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
 * Three round trips to the sandbox: list what it holds, upload the bundle, fetch and check out.
 */
export async function seedRepository(workspace: Workspace, lease: SandboxLease, staging: string, signal?: AbortSignal): Promise<Seeded> {
  if (!workspace.branch)
    throw new OutpostError("configuration", "A remote sandbox needs a work branch. Use branch mode named or integrate.");
  const listed = await sandboxGitSteps(
    lease,
    [
      { args: ["init", "--quiet"], what: "initialize the repository" },
      { args: HELD_REFS_ARGS, what: "list the commits the sandbox holds", optional: true },
    ],
    { signal },
  );
  const held = await verifiedAncestors(workspace, listed, signal);
  // A sandbox repository that claimed commits it does not hold, or is broken, starts over with the whole branch.
  return seedFrom(workspace, lease, staging, held, signal).catch(async (error: unknown) => {
    if (afterRecording(error)) throw error;
    await sandboxGitSteps(
      lease,
      [
        { executable: "rm", args: ["-rf", posix.join(lease.root, ".git")], what: "remove the sandbox repository" },
        { args: ["init", "--quiet"], what: "initialize the repository" },
      ],
      { signal },
    );
    return seedFrom(workspace, lease, staging, [], signal);
  });
}

/**
 * Sends the work branch minus what the sandbox holds as a bundle (nothing when it holds the baseline
 * itself), then in one command: fetches it into SEEDED_REFERENCE, checks the branch out, forced and cleaned
 * of untracked files (a persistent root may hold a previous agent's leftovers; ignored files such as
 * dependency caches stay), and reports HEAD, which must be the baseline.
 */
async function seedFrom(
  workspace: Workspace,
  lease: SandboxLease,
  staging: string,
  held: readonly string[],
  signal: AbortSignal | undefined,
): Promise<Seeded> {
  const branch = workspace.branch!;
  const whole = !held.includes(workspace.baseline);
  const target = posix.join(lease.home, ".outpost", "seed.bundle");
  let bytes = 0;
  if (whole) {
    const bundle = join(staging, "seed.bundle");
    const exclusions = held.map((commit) => `^${commit}`);
    await git(workspace.directory, ["bundle", "create", "--quiet", bundle, `refs/heads/${branch}`, ...exclusions], { signal });
    bytes = (await stat(bundle)).size;
    await lease.upload(bundle, target, { signal });
  }
  const record: SandboxGitStep[] = whole
    ? [
        { args: ["fetch", "--quiet", "--no-tags", target, `+refs/heads/${branch}:${SEEDED_REFERENCE}`], what: "fetch the seed bundle" },
        { executable: "rm", args: ["-f", target], what: "remove the seed bundle", optional: true },
      ]
    : [{ args: ["update-ref", SEEDED_REFERENCE, `${workspace.baseline}^{commit}`], what: "record the seeded commit" }];
  const printed = await sandboxGitSteps(
    lease,
    [
      ...record,
      { args: ["checkout", "--quiet", "--force", "-B", branch, SEEDED_REFERENCE], what: "check out the work branch" },
      { args: ["clean", "--quiet", "-d", "--force", "--force"], what: "clean the work tree" },
      { args: ["rev-parse", "HEAD"], what: "read the seeded HEAD" },
    ],
    { signal },
  );
  const head = printed.split("\n").at(-1)?.trim() ?? "";
  if (head !== workspace.baseline)
    throw new OutpostError(
      "workspace",
      `The seeded sandbox is at ${head.slice(0, 12)}, not at the baseline ${workspace.baseline.slice(0, 12)}.`,
      { details: { seededHead: head.slice(0, 64) } },
    );
  return { bytes, delta: held.length > 0 };
}

/** A failure once the seed was recorded (checkout, clean, the HEAD check): starting over would not help. */
function afterRecording(error: unknown): boolean {
  if (!OutpostError.isInstance(error)) return false;
  const step = error.details?.failedStep;
  return (typeof step === "number" && step > 0) || error.details?.seededHead !== undefined;
}
