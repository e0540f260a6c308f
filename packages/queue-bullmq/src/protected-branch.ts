import { OutpostError } from "@outpost/core";
import { runGit } from "./run-git.js";

/** Branches a job may publish on only with `repository.publishProtected: true`, besides the remote's default one. */
export const DEFAULT_PROTECTED_BRANCHES: readonly string[] = ["main", "master", "trunk", "develop", "release/*", "releases/*"];

/** `*` matches within one path segment, `**` across segments; anything else literally. */
export function matchesBranchPattern(branch: string, pattern: string): boolean {
  const source = pattern
    .split(/(\*\*|\*)/)
    .map((part) => (part === "**" ? ".*" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${source}$`).test(branch);
}

/** Why `branch` is protected (the remote's default branch, or the pattern it matches), or undefined. */
export function protectionOf(branch: string, patterns: readonly string[], defaultBranch: string | undefined): string | undefined {
  if (branch === defaultBranch) return "the remote's default branch";
  const pattern = patterns.find((candidate) => matchesBranchPattern(branch, candidate));
  return pattern === undefined ? undefined : `protected by the pattern ${JSON.stringify(pattern)}`;
}

/** The remote's default branch as the clone last saw it (`origin/HEAD`), or undefined when it has none. */
export async function cachedDefaultBranch(directory: string): Promise<string | undefined> {
  const ref = await runGit(directory, ["symbolic-ref", "--quiet", "refs/remotes/origin/HEAD"]).catch(() => undefined);
  return ref?.replace(/^refs\/remotes\/origin\//, "");
}

/**
 * Refuses (code `configuration`) a job that would publish on a protected branch without opting in: a person's
 * branch is moved by a fleet only when the job says so.
 */
export function assertMayPublish(
  job: string,
  branch: string,
  options: { readonly patterns: readonly string[]; readonly defaultBranch?: string; readonly optIn?: boolean },
): void {
  if (options.optIn === true) return;
  const why = protectionOf(branch, options.patterns, options.defaultBranch);
  if (why === undefined) return;
  throw new OutpostError(
    "configuration",
    `Job ${job} would publish on branch ${branch}, ${why}. Set repository.publishProtected: true in the job to allow it, ` +
      "or publish on another branch (repository.branch).",
    { details: { job, branch, reason: why } },
  );
}
