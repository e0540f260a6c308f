import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  OutpostError,
  assertSpecificationVersion,
  type Command,
  type CommandResult,
  type SandboxLease,
  type SandboxProvider,
} from "@outpost/core";
import type { Brief } from "../brief/brief.js";
import type { DispatchOptions, ProvidedOptions } from "../dispatch-options.js";
import { continuable, type ContinuableResult } from "../continue/continuable-result.js";
import { dispatch } from "../continue/continuable-dispatch.js";
import { openWorkspace, sharedWorkspaceOf, type OpenWorkspaceOptions, type Workspace } from "../workspace/shared-workspace.js";
import type { ClosedWorkspace } from "../workspace/close-workspace.js";
import { assertProviderHonours, branchPolicyFor } from "../options/provider-fit.js";
import { ensureOutpostDirectory } from "../workspace/outpost-directory.js";
import { heldLeaseProvider } from "./held-lease.js";
import { holdSandboxGit, type HeldGit } from "./held-git-boundary.js";
import type { Workspace as WorkingDirectory } from "../workspace/workspace.js";
import { serialOperations } from "./serial-operations.js";
import { refuseUnknownFields } from "../options/unknown-fields.js";

/** Options of `createSandbox()`: where the workspace lives (as `openWorkspace()`), the provider and a default agent. */
export interface CreateSandboxOptions extends OpenWorkspaceOptions {
  /** Allocates the one lease the sandbox keeps: a host, mounted or remote provider. */
  readonly sandboxProvider: SandboxProvider;
  /** The agent of each dispatch that names none. */
  readonly agent?: DispatchOptions["agent"];
  /** Where captured conversations are stored and found, for every dispatch of this sandbox. */
  readonly conversationHome?: string;
}

/** What createSandbox() takes; anything else is refused, as dispatch() refuses unknown fields. */
const SANDBOX_FIELDS = [
  "repository",
  "branch",
  "copies",
  "storageQuota",
  "hooks",
  "label",
  "signal",
  "sandboxProvider",
  "agent",
  "conversationHome",
] as const satisfies readonly (keyof CreateSandboxOptions)[];

/** The sandbox decides these once; a dispatch in it that gives one is refused. */
const FIXED = ["sandboxProvider", "workspace", "repository", "branch", "copies", "storageQuota"] as const;

/** Options of one dispatch in the sandbox: a dispatch's, but those the sandbox fixed, with an optional agent. */
export type SandboxDispatchOptions = Omit<DispatchOptions, (typeof FIXED)[number] | "agent" | "continuation" | "brief"> & {
  readonly agent?: DispatchOptions["agent"];
};

/** What `close()` left: the released sandbox's closed workspace, or the preserved sandbox's whereabouts. */
export type ClosedSandbox =
  | { readonly preserved: false; readonly workspace: ClosedWorkspace }
  | {
      readonly preserved: true;
      readonly sandboxId?: string;
      readonly root: string;
      readonly directory: string;
      /** Mounted: the private git directory the preserved lease still mounts (the caller removes it once done). */
      readonly gitDirectory?: string;
    };

/** A warm sandbox: one lease kept across its operations, which run one at a time (page 004). */
export interface Sandbox {
  /** The workspace every dispatch here works in. */
  readonly workspace: Workspace;
  /** The lease's root: where the agent's files are, as the sandbox sees them. */
  readonly root: string;
  readonly closed: boolean;
  dispatch(brief: Brief, options?: SandboxDispatchOptions): Promise<ContinuableResult>;
  /** The next turn of a captured conversation, in this sandbox. */
  resume(id: string, brief: Brief, options?: SandboxDispatchOptions): Promise<ContinuableResult>;
  /** A new conversation branched from a captured one (the original stays as it is), in this sandbox. */
  fork(id: string, brief: Brief, options?: SandboxDispatchOptions): Promise<ContinuableResult>;
  /** A plain command in the sandbox (relative directories from its root), no agent involved. */
  command(command: Command): Promise<CommandResult>;
  /** Releases the lease and closes the workspace; `{ preserve: true }` keeps both for later inspection. */
  close(options?: { readonly preserve?: boolean }): Promise<ClosedSandbox>;
}

/**
 * Opens a workspace and acquires one lease in it, kept until `close()`. Each dispatch is the engine's own
 * (its stages, journal, capture and integration), given the workspace and a provider that hands back the
 * held lease. On a mounted provider the lease keeps one private git directory, refilled at each dispatch's
 * baseline (held-git-boundary.ts); on a remote one each dispatch seeds the root, which then holds the
 * branch already, so only newer commits travel.
 */
export async function createSandbox(options: CreateSandboxOptions): Promise<Sandbox> {
  const provider = (options as Partial<CreateSandboxOptions> | undefined)?.sandboxProvider;
  if (provider === undefined)
    throw new OutpostError(
      "configuration",
      "createSandbox() needs sandboxProvider, the provider of the lease it keeps. Pass localProvider().",
    );
  refuseUnknownFields(options, "createSandbox()", SANDBOX_FIELDS);
  assertSpecificationVersion(provider, "sandbox provider");
  // As dispatch() checks them, before anything is opened: a placement it knows, a branch mode it can honour.
  const fit = { sandboxProvider: provider, ...(options.branch ? { branch: options.branch } : {}) } as ProvidedOptions;
  assertProviderHonours(fit);
  const workspace = await openWorkspace({ ...options, branch: branchPolicyFor(fit) });
  let acquired: Acquired;
  try {
    acquired = await acquireFor(provider, await sharedWorkspaceOf(workspace).forDispatch(), options.signal);
  } catch (error) {
    await workspace.close().catch(() => undefined);
    throw error;
  }
  const { lease, git, scratch } = acquired;
  assertSpecificationVersion(lease, "sandbox lease");
  const held = heldLeaseProvider(provider, lease, git ? (working) => git.boundary(working) : undefined);
  const serial = serialOperations();
  let closed: Promise<ClosedSandbox> | undefined;

  const run = async (
    name: string,
    brief: Brief,
    given: SandboxDispatchOptions,
    continuation?: DispatchOptions["continuation"],
  ): Promise<ContinuableResult> => {
    const agent = given.agent ?? options.agent;
    const result = await serial.run(name, () => {
      refuseClosed(closed, name);
      refuseFixed(given, name);
      if (agent === undefined)
        throw new OutpostError("configuration", `${name} needs an agent: pass { agent } to createSandbox() or to this call.`);
      return dispatch({
        ...(options.conversationHome !== undefined ? { conversationHome: options.conversationHome } : {}),
        ...given,
        agent,
        brief,
        sandboxProvider: held,
        workspace,
        ...(continuation ? { continuation } : {}),
      });
    });
    // The result's resume() and fork() stay in this sandbox (same lease, workspace and one-at-a-time rule).
    return continuable(result, { agent: agent! }, (next) => {
      const { brief: nextBrief, continuation: nextContinuation, ...rest } = next;
      return run(nextContinuation?.fork === true ? "fork()" : "resume()", nextBrief!, rest, nextContinuation);
    });
  };

  return {
    workspace,
    root: lease.root,
    get closed() {
      return closed !== undefined;
    },
    dispatch: (brief, given = {}) => run("dispatch()", brief, given),
    resume: (id, brief, given = {}) => run("resume()", brief, given, { id }),
    fork: (id, brief, given = {}) => run("fork()", brief, given, { id, fork: true }),
    command: (command) =>
      serial.run("command()", () => {
        refuseClosed(closed, "command()");
        return lease.invoke(command);
      }),
    close: (how = {}) => {
      // A second close returns the first one's outcome; a close during an operation is refused like any overlap.
      if (closed !== undefined) return closed;
      const closing = serial.run("close()", () => closeSandbox(how.preserve === true));
      if (serial.running === "close()") closed = closing;
      return closing;
    },
  };

  async function closeSandbox(preserve: boolean): Promise<ClosedSandbox> {
    if (preserve) {
      // The remote root's scratch is an empty folder nothing reads: it goes even when the sandbox stays.
      if (scratch) await rm(scratch, { recursive: true, force: true });
      return {
        preserved: true,
        ...(lease.sandboxId !== undefined ? { sandboxId: lease.sandboxId } : {}),
        root: lease.root,
        directory: workspace.directory,
        ...(git?.context.git ? { gitDirectory: git.context.git.directory } : {}),
      };
    }
    // Both run even when one fails; the first failure is the close's. The private git directory and the
    // remote root's scratch go once the lease that mounts them is gone.
    const [released, ended] = await Promise.allSettled([
      lease.release().finally(() => Promise.allSettled([git?.dispose(), scratch && rm(scratch, { recursive: true, force: true })])),
      workspace.close(),
    ]);
    if (released.status === "rejected") throw released.reason as Error;
    if (ended.status === "rejected") throw ended.reason as Error;
    return { preserved: false, workspace: ended.value };
  }
}

interface Acquired {
  readonly lease: SandboxLease;
  /** Mounted: the private git directory the lease mounts. */
  readonly git?: HeldGit;
  /** Remote: the empty host directory named as the context's, which nothing reads. */
  readonly scratch?: string;
}

/** The lease, acquired as a dispatch would acquire it on this placement (sandbox-stage.ts). */
async function acquireFor(provider: SandboxProvider, working: WorkingDirectory, signal: AbortSignal | undefined): Promise<Acquired> {
  const remote = provider.placement === "remote";
  const git = provider.placement === "mounted" ? await holdSandboxGit(working) : undefined;
  const scratch = remote ? await mkdtemp(join(tmpdir(), "outpost-warm-root-")) : undefined;
  try {
    const lease = await provider.acquire({
      repository: working.root,
      directory: scratch ?? working.directory,
      ...(git ? git.context : { gitDirectories: remote ? [] : [working.commonDirectory] }),
      protectedPaths: remote ? [] : [await ensureOutpostDirectory(working.root)],
      variables: {},
      ...(signal ? { signal } : {}),
    });
    return { lease, ...(git ? { git } : {}), ...(scratch ? { scratch } : {}) };
  } catch (error) {
    await Promise.allSettled([git?.dispose(), scratch && rm(scratch, { recursive: true, force: true })]);
    throw error;
  }
}

function refuseClosed(closed: Promise<ClosedSandbox> | undefined, name: string): void {
  if (closed !== undefined)
    throw new OutpostError("configuration", `The sandbox was closed, so ${name} was refused. Create another with createSandbox().`);
}

function refuseFixed(given: SandboxDispatchOptions, name: string): void {
  const fixed = FIXED.filter((field) => (given as Record<string, unknown>)[field] !== undefined);
  if (fixed.length > 0)
    throw new OutpostError(
      "configuration",
      `${name} in a sandbox cannot set ${fixed.join(", ")}: the sandbox fixed them when it was created. Pass them to createSandbox().`,
      { details: { fields: fixed } },
    );
}
