/**
 * Everything the host reads or runs later from the checkout's `.outpost`, with the code that reads it.
 * None of it may be writable from a sandbox: a mounted provider masks `.outpost` (`SandboxContext.
 * protectedPaths`), and each reader refuses what another user could have written (`host-written.ts`; the
 * conversation stores through `host/captured-file.ts`, both on core's `host-owned-file.ts`).
 * `tests/host-read-paths.test.ts` fails when code reads a place under `.outpost` missing from this table,
 * and the e2e suite plants a file at each of them from every provider and branch mode.
 */
export interface HostReadPath {
  /** Relative to the checkout root, with `/`. */
  readonly path: string;
  /** `file`: one file; `tree`: a directory whose files are read. */
  readonly kind: "file" | "tree";
  /** The source file (under `packages/dispatch/src`, or the package named) that reads it, and why it matters. */
  readonly reader: string;
}

export const HOST_READ_PATHS: readonly HostReadPath[] = Object.freeze([
  { path: ".outpost/.env", kind: "file", reader: "turn/env-file.ts: variables of every agent command (PATH runs programs)" },
  { path: ".outpost/config.json", kind: "file", reader: "@outpost/cli config/config-file.ts: defaults of outpost run" },
  { path: ".outpost/.gitignore", kind: "file", reader: "git: keeps .outpost out of status (workspace/outpost-directory.ts writes it)" },
  { path: ".outpost/storage/activity", kind: "tree", reader: "maintenance/read-activity.ts: what outpost clean stops and removes" },
  { path: ".outpost/storage/objects", kind: "tree", reader: "journal/local-transport.ts: journals that replay re-emits" },
  { path: ".outpost/locks", kind: "tree", reader: "workspace/file-lock.ts: who holds a lock, taken over when dead" },
  { path: ".outpost/reservations", kind: "tree", reader: "quota/storage-quota.ts: storage reserved by running dispatches" },
  { path: ".outpost/recovery", kind: "tree", reader: "remote/recovery-backup.ts: backups whose restore command the user runs" },
  { path: ".outpost/conversations", kind: "tree", reader: "@outpost/conversations host/conversation-directory.ts: captured sessions" },
  { path: ".outpost/workspaces", kind: "tree", reader: "workspace/open-workspace.ts, git/git-control-files.ts: kept worktrees" },
]);
