import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxLease } from "@outpost/core";
import { git } from "../git/run-git.js";
import type { Workspace } from "../workspace/workspace.js";
import { HELD_REFS_ARGS, verifiedAncestors } from "./verified-ancestors.js";
import { sandboxGitSteps, type SandboxGitStep } from "./sandbox-git-steps.js";
import { SpeculativeBundle } from "./speculative-bundle.js";

export interface Seeded {
  /** Bytes of the bundle sent into the sandbox (0 when it already held the baseline). */
  readonly bytes: number;
  /** True when the bundle was a delta over commits the sandbox already held. */
  readonly delta: boolean;
}

/** Where the sandbox keeps what it was seeded with: a later seed may send only what is newer. */
export const SEEDED_REFERENCE = "refs/outpost/seeded";

/** Printed before `git init` when the sandbox root is empty: nothing there for `git clean` to remove. */
const EMPTY_ROOT = "outpost-empty-root";
const EMPTY_ROOT_PROBE = `[ -n "$(ls -A . 2>/dev/null)" ] || echo ${EMPTY_ROOT}`;
/** Writes the script's stdin to `$1` (the seed bundle): the upload travels with the command that fetches it. */
const RECEIVE_BUNDLE = `mkdir -p -- "\${1%/*}" && cat > "$1"`;

/** Seed failures past the point where the seed was recorded (checkout, clean, the HEAD check): starting over would not help. */
const afterRecording = new WeakSet<object>();

/**
 * Seeds a remote sandbox with the work branch as a git bundle, checked out at the dispatch's baseline.
 * Only the work branch travels: no config, hooks or other refs of the host repository. When the sandbox
 * (a persistent root, or a retained sandbox) already holds commits the host verifies as ancestors of the
 * baseline, the bundle is a delta over them; git refuses it in the sandbox if those commits are not there.
 * Two or three round trips to the sandbox: list what it holds (while the host bundles the whole branch,
 * which most seeds send), then upload the bundle and fetch and check it out, in one command where the lease's
 * live stdin is a pipe.
 */
export async function seedRepository(workspace: Workspace, lease: SandboxLease, staging: string, signal?: AbortSignal): Promise<Seeded> {
  if (!workspace.branch)
    throw new OutpostError("configuration", "A remote sandbox needs a work branch. Use branch mode named or integrate.");
  const whole = new SpeculativeBundle(workspace, join(staging, "seed.bundle"), signal);
  try {
    const listed = await sandboxGitSteps(
      lease,
      [
        { executable: "sh", args: ["-c", EMPTY_ROOT_PROBE], what: "look at the sandbox root", optional: true },
        { args: ["init", "--quiet"], what: "initialize the repository" },
        { args: HELD_REFS_ARGS, what: "list the commits the sandbox holds", optional: true },
      ],
      { signal },
    );
    const held = await verifiedAncestors(workspace, listed, signal);
    // The sandbox says so; lying only leaves its own leftovers in place, which the agent could make anyway.
    const empty = listed.split("\n")[0]?.trim() === EMPTY_ROOT && held.length === 0;
    // A sandbox repository that claimed commits it does not hold, or is broken, starts over with the whole branch.
    return await seedFrom(workspace, lease, staging, held, empty, whole, signal).catch(async (error: unknown) => {
      if (typeof error === "object" && error !== null && afterRecording.has(error)) throw error;
      await sandboxGitSteps(
        lease,
        [
          { executable: "rm", args: ["-rf", posix.join(lease.root, ".git")], what: "remove the sandbox repository" },
          { args: ["init", "--quiet"], what: "initialize the repository" },
        ],
        { signal },
      );
      return seedFrom(workspace, lease, staging, [], false, whole, signal);
    });
  } finally {
    whole.stop();
  }
}

/**
 * Sends the work branch minus what the sandbox holds as a bundle (nothing when it holds the baseline
 * itself), then in one command: fetches it into SEEDED_REFERENCE, checks the branch out, forced and cleaned
 * of untracked files (a persistent root may hold a previous agent's leftovers; ignored files such as
 * dependency caches stay; an empty root has none), and reports HEAD, which must be the baseline.
 */
async function seedFrom(
  workspace: Workspace,
  lease: SandboxLease,
  staging: string,
  held: readonly string[],
  empty: boolean,
  whole: SpeculativeBundle,
  signal: AbortSignal | undefined,
): Promise<Seeded> {
  const branch = workspace.branch!;
  const sending = !held.includes(workspace.baseline);
  const target = posix.join(lease.home, ".outpost", "seed.bundle");
  let bytes = 0;
  let bundle: string | undefined;
  if (sending) {
    if (held.length === 0) bundle = await whole.file();
    else {
      whole.stop();
      bundle = join(staging, "seed-delta.bundle");
      await git(
        workspace.directory,
        ["bundle", "create", "--quiet", bundle, `refs/heads/${branch}`, ...held.map((commit) => `^${commit}`)],
        {
          signal,
        },
      );
    }
    bytes = (await stat(bundle)).size;
  }
  // A pipe into the sandbox carries the bundle with the command that fetches it: one round trip less.
  const piped = bundle !== undefined && lease.liveInput === true && lease.idleInput === true;
  if (bundle !== undefined && !piped) await lease.upload(bundle, target, { signal });
  const receive: SandboxGitStep[] = piped
    ? [{ executable: "sh", args: ["-c", RECEIVE_BUNDLE, "outpost-seed", target], what: "receive the seed bundle" }]
    : [];
  const record: SandboxGitStep[] = sending
    ? [
        { args: ["fetch", "--quiet", "--no-tags", target, `+refs/heads/${branch}:${SEEDED_REFERENCE}`], what: "fetch the seed bundle" },
        { executable: "rm", args: ["-f", target], what: "remove the seed bundle", optional: true },
      ]
    : [{ args: ["update-ref", SEEDED_REFERENCE, `${workspace.baseline}^{commit}`], what: "record the seeded commit" }];
  const steps: SandboxGitStep[] = [
    ...receive,
    ...record,
    { args: ["checkout", "--quiet", "--force", "-B", branch, SEEDED_REFERENCE], what: "check out the work branch" },
    ...(empty ? [] : [{ args: ["clean", "--quiet", "-d", "--force", "--force"], what: "clean the work tree" }]),
    { args: ["rev-parse", "HEAD"], what: "read the seeded HEAD" },
  ];
  let printed: string;
  try {
    printed = await sandboxGitSteps(lease, steps, { signal, ...(piped ? { input: createReadStream(bundle!) } : {}) });
  } catch (error) {
    // Past the fetch (or the recorded commit), the seed was recorded: a failure there is final.
    const step = OutpostError.isInstance(error) ? error.details?.failedStep : undefined;
    if (typeof step === "number" && step > receive.length) afterRecording.add(error as object);
    throw error;
  }
  const head = printed.split("\n").at(-1)?.trim() ?? "";
  if (head !== workspace.baseline) {
    const error = new OutpostError(
      "workspace",
      `The seeded sandbox is at ${head.slice(0, 12)}, not at the baseline ${workspace.baseline.slice(0, 12)}.`,
      { details: { seededHead: head.slice(0, 64) } },
    );
    afterRecording.add(error);
    throw error;
  }
  return { bytes, delta: held.length > 0 };
}
