import { OutpostError, type RecordedCommit, type SandboxLease } from "@outpost/core";
import { commitObject } from "../journal/commit-object.js";
import { sandboxGit } from "../remote/sandbox-git-command.js";

/** What rebuilding one recorded commit gave. */
export interface RebuiltCommit {
  readonly id: string;
  readonly tree: string;
}

/**
 * Rebuilds a recorded commit in the sandbox with git alone: applies its patch to the work tree and index,
 * writes the tree, and writes the commit object from the recorded fields on top of HEAD, then moves HEAD.
 * From the same parent with the same tree, the object and so the commit id are identical.
 */
export async function rebuildCommit(lease: SandboxLease, commit: RecordedCommit, signal?: AbortSignal): Promise<RebuiltCommit> {
  const run = (args: readonly string[], stdin?: string): Promise<string> =>
    sandboxGit(lease, args, `run git ${args[0]}`, { ...(signal ? { signal } : {}), ...(stdin !== undefined ? { stdin } : {}) }).catch(
      (error: unknown) => {
        throw new OutpostError(
          "replay",
          `Rebuilding commit ${commit.id} failed (${error instanceof Error ? error.message : String(error)}). The sandbox's repository is not where the recording left it.`,
          { details: { commit: commit.id }, cause: error },
        );
      },
    );
  const head = await run(["rev-parse", "--verify", "HEAD^{commit}"]);
  if (commit.patch.length > 0) await run(["apply", "--binary", "--index", "--whitespace=nowarn", "-"], commit.patch);
  const tree = await run(["write-tree"]);
  // The recorded first parent is replaced by where the replay stands; under `fail` they are the same.
  const object = commitObject({ ...commit, tree, parents: [head, ...commit.parents.slice(1)] });
  const id = await run(["hash-object", "-t", "commit", "-w", "--stdin"], object);
  await run(["update-ref", "-m", `replay: ${commit.id}`, "HEAD", id, head]);
  return { id, tree };
}
