import { chown } from "node:fs/promises";
import type { SandboxContext } from "@outpost/core";

/** The kit's host workspace, handed to the lease user (1000) so the non-root container can write it. */
export async function workspaceContext(workspace: string): Promise<SandboxContext> {
  if (process.getuid?.() === 0) await chown(workspace, 1000, 1000);
  return { repository: workspace, directory: workspace, gitDirectories: [], variables: {} };
}
