import { OutpostError } from "@outpost/core";

/**
 * Where the agent works and where its commits land.
 * - current: in the host checkout, on its current branch.
 * - named: in a managed worktree on branch `name` (created from `base`, default HEAD, when missing).
 * - integrate: in a managed worktree on a fresh branch, merged into `target` (default: the host checkout's
 *   branch) on success without switching the host checkout.
 */
export type BranchPolicy =
  | { readonly mode: "current" }
  | { readonly mode: "named"; readonly name: string; readonly base?: string }
  | { readonly mode: "integrate"; readonly name?: string; readonly target?: string };

export type BranchMode = BranchPolicy["mode"];

/** Checks the shape of a policy given from untyped code (code `configuration`). */
export function assertBranchPolicy(policy: unknown): asserts policy is BranchPolicy {
  const mode = (policy as { mode?: unknown } | undefined)?.mode;
  if (mode !== "current" && mode !== "named" && mode !== "integrate") {
    throw new OutpostError(
      "configuration",
      `Unknown branch policy ${JSON.stringify(policy)}. Use { mode: "current" }, { mode: "named", name } or { mode: "integrate" }.`,
    );
  }
  if (mode === "named" && typeof (policy as { name?: unknown }).name !== "string") {
    throw new OutpostError("configuration", `Branch policy "named" needs a branch name. Pass { mode: "named", name: "my-branch" }.`);
  }
}
