import { join } from "node:path";
import { assertHostOwned, assertHostOwnedDirectories, readHostOwnedFile, type HostOwnedOptions } from "@outpost/core";
import { outpostDirectory } from "./outpost-directory.js";

/**
 * What the host reads back from the checkout's `.outpost`: the rule (a regular file or directory, not a
 * link, that only the host user or root could have written) is core's `ownershipProblem`, shared with the
 * conversation stores; this adds the walk from `<root>/.outpost` down to the file.
 */
export interface HostFileOptions extends HostOwnedOptions {
  /** Larger files are refused. */
  readonly maxBytes?: number;
  /** The checkout root: the directories from its `.outpost` down to the file are checked too. */
  readonly root?: string;
}

/** Refuses (as `readHostFile` would) an entry another user could have written; for callers that lstat it themselves. */
export const assertHostWritten = assertHostOwned;

/** Reads a file under `<root>/.outpost` that only the host user could have written, on a path of such directories. */
export async function readHostFile(path: string, options: HostFileOptions): Promise<Buffer | undefined> {
  if (options.root !== undefined) await assertHostDirectories(options.root, join(path, ".."), options);
  return readHostOwnedFile(path, options);
}

/** Checks each existing directory from `<root>/.outpost` down to `directory` (a link or a foreign writer is refused). */
export async function assertHostDirectories(root: string, directory: string, options: HostOwnedOptions): Promise<void> {
  await assertHostOwnedDirectories(outpostDirectory(root), directory, options);
}
