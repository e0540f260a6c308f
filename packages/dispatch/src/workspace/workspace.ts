import type { BranchMode } from "./branch-policy.js";

/** The directory the agent works in and the branch it commits to. */
export interface Workspace {
  readonly mode: BranchMode;
  /** Root of the host checkout. */
  readonly root: string;
  readonly commonDirectory: string;
  /** The host checkout's own git directory. */
  readonly gitDirectory: string;
  /** Where the agent works: the checkout root (current) or a managed worktree. */
  readonly directory: string;
  /** The branch the agent commits to; undefined on a detached HEAD (current mode). */
  readonly branch: string | undefined;
  /** Integrate mode: the host branch the work is merged into. */
  readonly target?: string;
  /** HEAD before the agent started; commits are baseline..HEAD. */
  readonly baseline: string;
  /** True when this dispatch created `directory` as a new worktree. */
  readonly created: boolean;
  /** True when this dispatch created the branch (integrate always; named when it did not exist). */
  readonly branchCreated?: boolean;
  /** Copies that are untracked or ignored in the worktree: the worktree is kept at close. */
  readonly untrackedCopies: readonly string[];
}
