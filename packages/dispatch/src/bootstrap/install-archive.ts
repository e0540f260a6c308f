import { randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { OutpostError, type SandboxLease } from "@outpost/core";
import type { BootstrapInstaller } from "./resolve-bootstrap.js";
import { freshInstallDirectory, removeInstallDirectory } from "./install-directory.js";
import { bootstrapFailure, sandboxShell, tail } from "./sandbox-shell.js";
import { sha512Hex } from "./sha512-digest.js";

type ArchiveInstaller = Extract<BootstrapInstaller, { kind: "archive" }>;

/** The most an archive may weigh (read into memory on the host to be verified). */
const MAX_ARCHIVE_BYTES = 2 * 1024 * 1024 * 1024 - 1;

// Re-checks the digest after the upload (when sha512sum exists), then extracts without restoring owners.
// GNU and busybox tar both refuse members with ".." and strip a leading "/"; the target is fresh (see install-directory).
const EXTRACT = `set -eu
archive=$1; target=$2; expected=$3; gzip=$4; executable=$5
if command -v sha512sum >/dev/null 2>&1; then
  actual=$(sha512sum "$archive" | cut -d ' ' -f 1)
  [ "$actual" = "$expected" ] || { echo "sha512 in the sandbox: $actual" >&2; exit 65; }
fi
if [ "$gzip" = 1 ]; then tar -x -z -o -f "$archive" -C "$target"; else tar -x -o -f "$archive" -C "$target"; fi
[ -f "$target/$executable" ] && [ -x "$target/$executable" ] || { echo "no executable $executable in the archive" >&2; exit 66; }`;

/**
 * Reads the archive on the host and checks its SHA-512 before anything reaches the sandbox (a mismatch fails
 * with `configuration` and nothing is uploaded or extracted), uploads the verified bytes, checks them again in
 * the sandbox, and extracts them into a fresh `<home>/.outpost/cli/<name>-<digest>`. Returns the executable's directory.
 */
export async function installArchive(
  lease: SandboxLease,
  installer: ArchiveInstaller,
  staging: string,
  signal?: AbortSignal,
): Promise<string> {
  const bytes = await readArchive(installer, signal);
  const actual = sha512Hex(bytes);
  if (actual !== installer.sha512)
    throw new OutpostError(
      "configuration",
      `The bootstrap archive of ${installer.name} (${installer.source}) has SHA-512 ${actual}, not the pinned ${installer.sha512}: ` +
        `it was refused and nothing was installed. Check the archive or its bootstrap.sources.${installer.name}.archive.sha512.`,
      { details: { expected: installer.sha512, actual } },
    );
  // The verified bytes are what travels: the source is not read again.
  const local = join(staging, `bootstrap-${installer.name}-${randomBytes(6).toString("hex")}.archive`);
  await writeFile(local, bytes, { mode: 0o600 });
  const target = await freshInstallDirectory(lease, `${installer.name}-${installer.sha512.slice(0, 12)}`, signal);
  const upload = await freshInstallDirectory(lease, `.upload-${randomBytes(6).toString("hex")}`, signal);
  try {
    const archive = posix.join(upload, "archive");
    await lease.upload(local, archive, { signal });
    const gzip = bytes[0] === 0x1f && bytes[1] === 0x8b ? "1" : "0";
    const result = await sandboxShell(lease, EXTRACT, [archive, target, installer.sha512, gzip, installer.executable], {
      signal,
      deadlineMs: 600_000,
    });
    if (result.status !== 0) {
      await removeInstallDirectory(lease, target, signal);
      throw bootstrapFailure(
        result.status === 65 ? "provider" : "process",
        result.status === 65
          ? `The bootstrap archive of ${installer.name} changed on its way into the sandbox (${tail(result)}); nothing was installed. Retry, or check the provider's upload.`
          : `Could not extract the bootstrap archive of ${installer.name} in the sandbox (exit ${result.status}): ` +
              `${tail(result)}. Check that the archive holds ${installer.executable} and that the sandbox has tar.`,
        result.status,
      );
    }
  } finally {
    await removeInstallDirectory(lease, upload, signal);
  }
  return posix.dirname(posix.join(target, installer.executable));
}

async function readArchive(installer: ArchiveInstaller, signal?: AbortSignal): Promise<Uint8Array> {
  try {
    if (/^https?:\/\//.test(installer.source)) {
      const response = await fetch(installer.source, { ...(signal ? { signal } : {}) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const declared = Number(response.headers.get("content-length") ?? 0);
      if (declared > MAX_ARCHIVE_BYTES) throw new Error(`${declared} bytes is more than ${MAX_ARCHIVE_BYTES}`);
      return new Uint8Array(await response.arrayBuffer());
    }
    return await readFile(installer.source, { ...(signal ? { signal } : {}) });
  } catch (error) {
    throw new OutpostError(
      "configuration",
      `Could not read the bootstrap archive of ${installer.name} from ${installer.source}: ${(error as Error).message}. Check bootstrap.sources.${installer.name}.archive.source.`,
      { cause: error },
    );
  }
}
