import { cp, mkdir } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import type { SandboxLease } from "@outpost/core";
import type { Workspace } from "../workspace/workspace.js";
import type { PendingChanges } from "./pending-changes.js";

/**
 * `includeUncommitted`: puts the worktree's uncommitted changes and untracked, non-ignored files into the
 * seeded sandbox (one upload of a staged copy), and deletes there what is deleted on the host.
 */
export async function sendUncommitted(
  workspace: Workspace,
  pending: PendingChanges,
  lease: SandboxLease,
  staging: string,
  signal?: AbortSignal,
): Promise<number> {
  const copy = join(staging, "uncommitted");
  await mkdir(copy, { recursive: true });
  const deleted: string[] = [];
  for (const [path, content] of pending.files) {
    if (content === null) {
      deleted.push(path);
      continue;
    }
    await mkdir(dirname(join(copy, path)), { recursive: true });
    await cp(join(workspace.directory, path), join(copy, path), { verbatimSymlinks: true, preserveTimestamps: true });
  }
  if (pending.files.size > deleted.length) await lease.upload(copy, lease.root, { signal });
  if (deleted.length > 0)
    await lease.invoke({ executable: "rm", arguments: ["-f", "--", ...deleted.map((path) => posix.join(lease.root, path))], signal });
  return pending.files.size;
}
