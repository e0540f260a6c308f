import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { assertSpecificationVersion, throwIfAborted, type ConversationContext } from "@outpost/core";
import { openGitBoundary } from "../git/git-boundary.js";
import { heldBoundaryOf } from "../sandbox/held-lease.js";
import { runHostHooks, runSandboxHooks } from "../hooks/run-hooks.js";
import { isPrivateHostHome } from "../turn/shared-home.js";
import { ensureOutpostDirectory } from "../workspace/outpost-directory.js";
import { note, workspaceOf, type DispatchState } from "./dispatch-state.js";

/**
 * Stage `sandbox`: acquires the lease behind a git boundary (the sandbox never writes the host's git
 * directory), records it, and runs the `hostReady` and `sandboxReady` hooks.
 */
export async function sandboxStage(state: DispatchState): Promise<void> {
  const { options, observers } = state;
  const { sandboxProvider: provider, signal } = options;
  const workspace = workspaceOf(state);
  throwIfAborted(signal, "The dispatch");
  // A warm sandbox's held provider keeps its git boundary across dispatches (createSandbox()).
  const boundary = await (heldBoundaryOf(provider)?.(workspace) ?? openGitBoundary(workspace, provider.placement));
  // A remote sandbox starts from an empty root: the repository arrives as a bundle in the seed stage.
  const directory =
    provider.placement === "remote"
      ? await mkdir(join(state.staging, "remote-root"), { recursive: true }).then(() => join(state.staging, "remote-root"))
      : workspace.directory;
  // What the host reads later from the checkout's `.outpost` stays out of the sandbox's reach (see host-read-paths.ts).
  const protectedPaths = provider.placement === "remote" ? [] : [await ensureOutpostDirectory(workspace.root)];
  const lease = await provider
    .acquire({ repository: state.repository.root, directory, ...boundary.context, protectedPaths, variables: {}, signal })
    .catch(async (error: unknown) => {
      await boundary.dispose();
      throw error;
    });
  const context: ConversationContext = {
    repository: state.repository.root,
    sandbox: lease,
    staging: state.staging,
    // The CLI runs with these: a CLI home they set (COPILOT_HOME...) is where its sessions are. A fallback
    // agent's turns are captured with its own variables (turns stage).
    variables: state.variables.get(state.agent) ?? {},
    home: options.conversationHome,
    local: provider.placement === "host",
    warn: (message) => observers.warn(message),
    signal,
  };
  state.sandbox = { lease, boundary, context };
  assertSpecificationVersion(lease, "sandbox lease");
  state.recorded.push(
    note(
      state,
      state.activity.update({
        phase: "sandbox",
        ...(typeof lease.sandboxId === "string" ? { sandbox: lease.sandboxId } : {}),
        ...(provider.placement === "remote" ? { sandboxRoot: lease.root } : {}),
        ...(boundary.context.git ? { sandboxGit: boundary.context.git.directory } : {}),
        ...(isPrivateHostHome(provider, lease) ? { home: lease.home } : {}),
      }),
    ),
  );
  // Hooks given to the dispatch replace those of a workspace from openWorkspace().
  const hooks = { ...state.resolved.shared?.hooks, ...options.hooks };
  await Promise.all([
    runHostHooks("hostReady", hooks.hostReady ?? [], workspace.directory, signal, state.dispatchId),
    runSandboxHooks(hooks.sandboxReady ?? [], lease, signal, state.dispatchId),
    ...state.recorded,
  ]);
}
