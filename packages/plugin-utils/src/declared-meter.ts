import { OutpostError, type FileManifestEntry } from "@outpost/core";
import type { StagingMeter } from "./archive-staging.js";

/**
 * A meter that holds a batch download to what its manifest declared: no more entries and no more bytes in
 * all. The SHA-256 check comes after the bytes are staged, so without it a sandbox could fill the host's
 * disk with an archive far larger than the manifest it was budgeted by.
 */
export function declaredMeter(entries: readonly FileManifestEntry[]): StagingMeter {
  const declared = entries.reduce((total, entry) => total + entry.size, 0);
  let files = 0;
  let bytes = 0;
  return {
    add(size) {
      files += 1;
      bytes += size;
      if (files > entries.length || bytes > declared)
        throw new OutpostError(
          "workspace",
          `The sandbox sent more than its manifest declared (${entries.length} entries, ${declared} bytes): refused while staging, before the destination was touched. Make the manifest again.`,
          { details: { entries: entries.length, bytes: declared } },
        );
    },
  };
}
