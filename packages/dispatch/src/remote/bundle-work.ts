import { stat } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxLease } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import { objectId, SANDBOX_GIT_CONFIG } from "./sandbox-git-command.js";

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
  const inside = posix.join(lease.home, ".outpost", "work.bundle");
  const made = await lease.invoke({
    executable: "sh",
    arguments: ["-c", BUNDLE_WORK, "outpost-bundle", `refs/heads/${workspace.branch!}`, workspace.baseline, inside, ...gitConfig()],
    directory: lease.root,
    signal,
    deadlineMs: 600_000,
    retain: 64 * 1024,
  });
  if (made.status === 200 || made.status === 201)
    throw new OutpostError(
      "workspace",
      `Could not ${made.status === 200 ? "read the work branch" : "bundle the agent's commits"} in the sandbox (git exit ${made.status}): ` +
        `${made.stderr.trim().slice(-500)}. Check that git is installed in the sandbox image.`,
      { details: { status: made.status } },
    );
  const [tip, counted] = made.stdout.trim().split("\n");
  if (made.status === 0 && objectId(tip?.trim() ?? "") === workspace.baseline) return undefined;
  const claimed = Number(counted?.trim());
  if (made.status !== 0 || counted === undefined || !Number.isSafeInteger(claimed)) throw tooLarge(workspace, undefined, maxBytes);
  if (claimed > maxBytes) throw tooLarge(workspace, claimed, maxBytes);
  const host = join(staging, "work.bundle");
  await lease.download(inside, host, { signal });
  const { size } = await stat(host);
  if (size > maxBytes) throw tooLarge(workspace, size, maxBytes);
  return host;
}

/**
 * In one command (a round trip per command is what a remote sandbox costs): the work branch's tip, and
 * unless it is the baseline, a bundle of the commits since the baseline and its size. Without the baseline
 * in the sandbox (history rewritten and pruned) the bundle carries the whole branch; the ancestry check on
 * the host refuses it either way. Prints `<tip>` then `<bytes>`; exit 200: no work branch, 201: no bundle.
 */
const BUNDLE_WORK = `ref=$1; baseline=$2; inside=$3; shift 3
tip=$(git "$@" rev-parse --verify --quiet "$ref^{commit}") || exit 200
printf '%s\\n' "$tip"
[ "$tip" = "$baseline" ] && exit 0
mkdir -p "\${inside%/*}" || exit 201
git "$@" bundle create --quiet "$inside" "$ref" "^$baseline" 2>/dev/null || git "$@" bundle create --quiet "$inside" "$ref" || exit 201
wc -c < "$inside"`;

/** The engine's per-command git configuration, as arguments for the script's git commands. */
function gitConfig(): string[] {
  return Object.entries(SANDBOX_GIT_CONFIG).flatMap(([key, value]) => ["-c", `${key}=${value}`]);
}

function tooLarge(workspace: Workspace, bytes: number | undefined, maxBytes: number): OutpostError {
  return new OutpostError(
    "workspace",
    `The sandbox's work was refused before the host was touched: its bundle is ${bytes === undefined ? "of unknown size" : `${bytes} bytes`}, ` +
      `over the limit of ${maxBytes} bytes (limits.bundleBytes). The host repository is unchanged; raise limits.bundleBytes if the work is really that large.`,
    { details: { bytes, maxBytes, branch: workspace.branch } },
  );
}
