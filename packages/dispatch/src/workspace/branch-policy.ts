import { OutpostError } from "@outpost/core";

/**
 * Where the agent works and where its commits land.
 * - current: in the host checkout, on its current branch.
 * - named: in a managed worktree on branch `name` (created from `base`, alias `from`, default HEAD, when missing).
 * - integrate: in a managed worktree on a fresh branch, merged into `target` (default: the host checkout's
 *   branch) on success without switching the host checkout.
 */
export type BranchPolicy =
  | { readonly mode: "current" }
  | { readonly mode: "named"; readonly name: string; readonly base?: string; readonly from?: string }
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

/** The policy with aliases folded in (`from` is the public library's name for `base`), start points checked. */
export function canonicalBranchPolicy(policy: BranchPolicy): BranchPolicy {
  if (policy.mode !== "named") return policy;
  const { from, ...rest } = policy;
  if (from !== undefined && rest.base !== undefined && from !== rest.base)
    throw new OutpostError(
      "configuration",
      `Branch policy "named" got base "${rest.base}" and from "${from}": they name the same start point. Pass one of them.`,
    );
  const base = rest.base ?? from;
  if (base === undefined) return rest;
  // The start point reaches git as an argument: an option-like or empty value is refused, never passed.
  if (typeof base !== "string" || base.trim() === "" || base.startsWith("-") || /[\0\n]/.test(base))
    throw new OutpostError(
      "configuration",
      `Branch policy "named" has start point ${JSON.stringify(base)}, which is not a revision. Pass a branch, tag or commit id.`,
    );
  return { ...rest, base };
}
