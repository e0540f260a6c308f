import { OutpostError, type Transport, type TransportReference } from "@outpost/core";
import { packHostEntries, scanHostTree } from "@outpost/plugin-utils";
import type { RecoveryBackup } from "./recovery-backup.js";

/** Where a dispatch's recovery backup is archived in the `recoveryTransport`. */
export function recoveryArchiveKey(dispatchId: string): string {
  return `recovery/${dispatchId}/backup.tar`;
}

/**
 * `recoveryTransport`: archives the whole recovery backup (bundle, patch, untracked files, manifest) as one
 * tar object, created once (never overwriting an archive), so it survives the host's `.outpost` and the
 * sandbox. Restore: extract it into a directory D, then run the manifest's `archiveRestore` with D for `<extracted>`.
 */
export async function archiveRecovery(
  backup: RecoveryBackup,
  transport: Transport,
  dispatchId: string,
  signal?: AbortSignal,
): Promise<TransportReference> {
  const key = recoveryArchiveKey(dispatchId);
  try {
    const tree = await scanHostTree(backup.location, () => signal?.throwIfAborted());
    const entries = tree.entries.filter((entry) => entry.path !== "");
    const { archive, finished } = packHostEntries(entries, {
      name: (entry) => (entry.kind === "directory" ? `${entry.path}/` : entry.path),
    });
    const chunks: Buffer[] = [];
    for await (const chunk of archive) chunks.push(Buffer.from(chunk as Uint8Array));
    await finished;
    const written = await transport.write(key, Buffer.concat(chunks), { ifRevision: null, ...(signal ? { signal } : {}) });
    return { key, revision: written.revision };
  } catch (error) {
    throw new OutpostError(
      (error as { code?: unknown }).code === "conflict" ? "conflict" : "transport",
      `Could not archive the recovery backup ${backup.location} to ${transport.name} as ${key}: ` +
        `${error instanceof Error ? error.message : String(error)}. Nothing was applied; the backup is still in ${backup.location}.`,
      { cause: error, details: { recoveryLocation: backup.location, restore: backup.restore, key } },
    );
  }
}
