import { OutpostError, tailLines, type FileManifestEntry, type SandboxLease } from "@outpost/core";
import { MANIFEST, parseManifestOutput } from "@outpost/plugin-utils";

/** Paths per command: well under the OS's limit on a command line, whatever the names. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The manifest of `paths` under the lease root, made in the sandbox by the shared MANIFEST script (modes,
 * sizes, SHA-256; a path reached through a link or a special file is refused): what a lease without
 * `fileTransfers` has for `manifest()`. A few commands at most, each for as many paths as fit.
 */
export async function sandboxManifest(lease: SandboxLease, paths: readonly string[], signal?: AbortSignal): Promise<FileManifestEntry[]> {
  const entries: FileManifestEntry[] = [];
  for (const chunk of chunks(paths)) {
    const made = await lease.invoke({
      executable: "sh",
      arguments: ["-c", MANIFEST, "outpost-manifest", lease.root, ...chunk.map((path) => `./${path}`)],
      directory: lease.root,
      ...(signal ? { signal } : {}),
      deadlineMs: 600_000,
      retain: 64 * 1024 * 1024,
    });
    if (made.status !== 0)
      throw new OutpostError(
        "workspace",
        `Refused to bring the sandbox's uncommitted files back: their manifest could not be made (exit ${made.status}): ${tailLines(made.stderr, 300)}. ` +
          "Nothing of them reached the host worktree.",
        { details: { status: made.status } },
      );
    entries.push(...parseManifestOutput(made.stdout));
  }
  return entries;
}

function* chunks(paths: readonly string[]): Generator<string[]> {
  let chunk: string[] = [];
  let bytes = 0;
  for (const path of paths) {
    const size = Buffer.byteLength(path) + 3;
    if (chunk.length > 0 && bytes + size > CHUNK_BYTES) {
      yield chunk;
      chunk = [];
      bytes = 0;
    }
    chunk.push(path);
    bytes += size;
  }
  if (chunk.length > 0) yield chunk;
}
