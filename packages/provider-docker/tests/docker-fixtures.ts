import { chown, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommandResult, SandboxContext, SandboxLease } from "@outpost/core";
import { dockerProvider, type DockerProviderConfig } from "@outpost/provider-docker";
import { TEST_IMAGE } from "@outpost/testkit/gates";

/** A fresh host directory owned by the default lease user (1000), removed by `dispose`. */
export async function hostWorkspace(prefix = "outpost-docker-test-"): Promise<{ directory: string; dispose: () => Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  if (process.getuid?.() === 0) await chown(directory, 1000, 1000);
  return { directory, dispose: () => rm(directory, { recursive: true, force: true }) };
}

export function contextFor(directory: string, extra: Partial<SandboxContext> = {}): SandboxContext {
  return { repository: directory, directory, gitDirectories: [], variables: {}, ...extra };
}

/** Acquires a lease on a fresh workspace, runs `body`, and always releases and cleans up. */
export async function withDockerLease<T>(
  config: DockerProviderConfig,
  body: (lease: SandboxLease, workspace: string) => Promise<T>,
  extra: Partial<SandboxContext> = {},
): Promise<T> {
  const workspace = await hostWorkspace();
  try {
    const lease = await dockerProvider({ image: TEST_IMAGE, network: "none", ...config }).acquire(contextFor(workspace.directory, extra));
    try {
      return await body(lease, workspace.directory);
    } finally {
      await lease.release();
    }
  } finally {
    await workspace.dispose();
  }
}

/** Runs `sh -c script` in the lease and returns the result. */
export function sh(lease: SandboxLease, script: string, extra: { deadlineMs?: number; signal?: AbortSignal } = {}): Promise<CommandResult> {
  return lease.invoke({ executable: "sh", arguments: ["-c", script], deadlineMs: 30_000, ...extra });
}

/** The id of the container behind a Docker lease. */
export function containerId(lease: SandboxLease): string {
  return (lease as unknown as { containerId: string }).containerId;
}
