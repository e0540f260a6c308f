import { randomUUID } from "node:crypto";
import { OutpostError, throwIfAborted } from "@outpost/core";
import type { LifecycleHooks } from "../hooks/lifecycle-hooks.js";
import { runHostHooks } from "../hooks/run-hooks.js";
import { currentBranch, findRepository, headCommit } from "../git/repository.js";
import { gitStatus } from "../git/run-git.js";
import { reserveStorage, type StorageQuota, type StorageReservation } from "../quota/storage-quota.js";
import { assertBranchPolicy, canonicalBranchPolicy, type BranchMode, type BranchPolicy } from "./branch-policy.js";
import { closeWorkspace, type ClosedWorkspace } from "./close-workspace.js";
import { applyCopies, validateCopies } from "./copies.js";
import { discardWorkspace } from "./discard-workspace.js";
import type { FileLock } from "./file-lock.js";
import { claimNamedBranch } from "./named-claim.js";
import { openWorkspace as openWorktree } from "./open-workspace.js";
import type { Workspace as WorkingDirectory } from "./workspace.js";

/** Options of `openWorkspace()`: where the workspace lives and how it is prepared (as in `dispatch()`). */
export interface OpenWorkspaceOptions {
  /** Path inside the host checkout, default the process's cwd. */
  readonly repository?: string;
  /** Default { mode: "current" }; a remote provider needs named or integrate. */
  readonly branch?: BranchPolicy;
  /** Repository-relative files copied from the host checkout into the new worktree (named or integrate). */
  readonly copies?: readonly string[];
  /** Storage admission checked before the worktree is made; released when the workspace closes. */
  readonly storageQuota?: StorageQuota;
  /** `workspaceReady` runs once the worktree exists; `hostReady` and `sandboxReady` run in each dispatch that does not give its own. */
  readonly hooks?: LifecycleHooks;
  /** Names the generated integrate branch. */
  readonly label?: string;
  readonly signal?: AbortSignal;
}

/** A workspace several dispatches work in, one at a time (the `workspace` option); only its own `close()` ends it. */
export interface Workspace {
  readonly mode: BranchMode;
  /** Root of the host checkout. */
  readonly root: string;
  /** Where the agents work: the checkout root (current) or a managed worktree. */
  readonly directory: string;
  /** The branch the agents commit to (undefined on a detached HEAD in current mode). */
  readonly branch: string | undefined;
  /** Integrate mode: the host branch each dispatch merges the work into. */
  readonly target?: string;
  /** True once `close()` ran. */
  readonly closed: boolean;
  /**
   * Removes a worktree this workspace created when nothing in it would be lost (an integrate branch only once
   * merged into its target), and releases its branch claim and storage reservation. A second call resolves.
   */
  close(): Promise<ClosedWorkspace>;
}

/** What dispatch() knows of a workspace from openWorkspace(); a handle from anywhere else is refused. */
export interface SharedWorkspace {
  readonly policy: BranchPolicy;
  readonly root: string;
  readonly hooks: LifecycleHooks;
  /** The dispatch holding the workspace, if one does. */
  holder: string | undefined;
  closed: boolean;
  /** The working directory as a dispatch sees it: baseline = HEAD now, never created (nor removed) by it. */
  forDispatch(): Promise<WorkingDirectory>;
}

const shared = new WeakMap<object, SharedWorkspace>();

/** Opens a workspace to pass to several dispatches as `workspace`; end it with its own `close()`. */
export async function openWorkspace(options: OpenWorkspaceOptions = {}): Promise<Workspace> {
  if (options.branch !== undefined) assertBranchPolicy(options.branch);
  const policy = canonicalBranchPolicy(options.branch ?? { mode: "current" });
  const copies = validateCopies(options.copies ?? [], policy.mode);
  const id = randomUUID();
  const repository = await findRepository(options.repository ?? process.cwd());
  throwIfAborted(options.signal, "Opening the workspace");
  const reservation: StorageReservation | undefined = options.storageQuota
    ? await reserveStorage(repository.root, { ...options.storageQuota, ...(options.signal ? { signal: options.signal } : {}) }, id)
    : undefined;
  let claim: FileLock | undefined;
  let opened: WorkingDirectory | undefined;
  try {
    if (policy.mode === "named") claim = await claimNamedBranch(repository.root, policy.name, id);
    opened = await openWorktree({ repository, policy, dispatchId: id, label: options.label, signal: options.signal });
    if (opened.created && copies.length > 0)
      opened = { ...opened, untrackedCopies: await applyCopies(repository.root, opened.directory, copies, options.signal) };
    if (opened.created) await runHostHooks("workspaceReady", options.hooks?.workspaceReady ?? [], opened.directory, options.signal);
  } catch (error) {
    if (opened) await discardWorkspace(opened).catch(() => undefined);
    await Promise.allSettled([claim?.release(), reservation?.release()]);
    throw error;
  }
  const working = opened;
  const record: SharedWorkspace = {
    policy,
    root: repository.root,
    hooks: { ...(options.hooks?.hostReady ? { hostReady: options.hooks.hostReady } : {}), ...sandboxHooks(options.hooks) },
    holder: undefined,
    closed: false,
    forDispatch: async () => ({
      ...working,
      // Each dispatch starts from where the previous one left the branch.
      ...(working.mode === "current" ? { branch: await currentBranch(working.directory) } : {}),
      baseline: await headCommit(working.directory),
      created: false,
      branchCreated: false,
    }),
  };
  let closing: Promise<ClosedWorkspace> | undefined;
  const handle: Workspace = {
    mode: working.mode,
    root: working.root,
    directory: working.directory,
    branch: working.branch,
    ...(working.target ? { target: working.target } : {}),
    get closed() {
      return record.closed;
    },
    close() {
      if (record.holder !== undefined && !record.closed)
        return Promise.reject(
          new OutpostError(
            "configuration",
            `The workspace ${working.directory} is in use by dispatch ${record.holder}. Close it once that dispatch has ended.`,
          ),
        );
      record.closed = true;
      closing ??= closeShared(working, claim, reservation);
      return closing;
    },
  };
  shared.set(handle, record);
  return handle;
}

/** The record behind a `workspace` option, or `configuration` for anything openWorkspace() did not return or that is closed. */
export function sharedWorkspaceOf(handle: unknown): SharedWorkspace {
  const record = typeof handle === "object" && handle !== null ? shared.get(handle) : undefined;
  if (!record)
    throw new OutpostError("configuration", "workspace must be a Workspace returned by openWorkspace(). Open one with openWorkspace().");
  if (record.closed) throw new OutpostError("configuration", "The workspace was closed. Open a new one with openWorkspace().");
  return record;
}

/** Binds the workspace to one dispatch (its sandbox) at a time; returns the release. */
export function bindSharedWorkspace(record: SharedWorkspace, dispatchId: string): () => void {
  if (record.closed) throw new OutpostError("configuration", "The workspace was closed. Open a new one with openWorkspace().");
  if (record.holder !== undefined)
    throw new OutpostError(
      "configuration",
      `The workspace is already bound to the open sandbox of dispatch ${record.holder}; ` +
        `two agents in one worktree would overwrite each other's work. Wait for that dispatch to end, or open another workspace.`,
      { details: { holder: record.holder } },
    );
  record.holder = dispatchId;
  return () => {
    if (record.holder === dispatchId) record.holder = undefined;
  };
}

async function closeShared(
  working: WorkingDirectory,
  claim: FileLock | undefined,
  reservation: StorageReservation | undefined,
): Promise<ClosedWorkspace> {
  try {
    // An integrate branch goes only once its target holds every commit on it: nothing unmerged is lost.
    const merged =
      working.mode === "integrate" &&
      (await gitStatus(working.root, ["merge-base", "--is-ancestor", `refs/heads/${working.branch!}`, `refs/heads/${working.target!}`]))
        .status === 0;
    return working.mode === "current" ? { kept: false } : await closeWorkspace(working, { deleteBranch: merged });
  } finally {
    await Promise.allSettled([claim?.release(), reservation?.release()]);
  }
}

function sandboxHooks(hooks: LifecycleHooks | undefined): LifecycleHooks {
  return hooks?.sandboxReady ? { sandboxReady: hooks.sandboxReady } : {};
}
