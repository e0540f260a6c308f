import { posix } from "node:path";
import type { SandboxLease } from "@outpost/core";
import { bootstrapFailure, sandboxShell, tail } from "./sandbox-shell.js";

/** Where bootstrap installs CLIs: `<home>/.outpost/cli/<leaf>`. */
export const INSTALL_PARENTS = [".outpost", "cli"] as const;

export function installPath(lease: SandboxLease, leaf: string): string {
  return posix.join(lease.home, ...INSTALL_PARENTS, leaf);
}

// The sandbox is hostile: a directory planted as a link would send the install (and the engine's later
// reads of it) elsewhere. Each parent is created one level at a time and refused when it is a link; the
// leaf is made fresh by `mkdir`, which never follows a link (it fails on anything already there).
const FRESH_DIRECTORY = `set -eu
dir=$1; leaf=$2; shift 2
for part in "$@"; do
  dir="$dir/$part"
  if [ -L "$dir" ]; then echo "$dir is a symbolic link" >&2; exit 3; fi
  [ -d "$dir" ] || mkdir -m 755 "$dir"
done
dir="$dir/$leaf"
if [ -L "$dir" ]; then echo "$dir is a symbolic link" >&2; exit 3; fi
rm -rf "$dir"
mkdir -m 755 "$dir"`;

/** Creates `<home>/.outpost/cli/<leaf>` empty (a stale one is removed first) and returns its path. */
export async function freshInstallDirectory(lease: SandboxLease, leaf: string, signal?: AbortSignal): Promise<string> {
  const result = await sandboxShell(lease, FRESH_DIRECTORY, [lease.home, leaf, ...INSTALL_PARENTS], { signal });
  if (result.status !== 0)
    throw bootstrapFailure(
      "provider",
      `Could not create the bootstrap directory ${installPath(lease, leaf)} in the sandbox: ${tail(result)}. Nothing was installed; use a sandbox whose home is a plain writable directory.`,
      result.status,
    );
  return installPath(lease, leaf);
}

/** Removes a bootstrap directory (best effort: the sandbox is released soon anyway). */
export async function removeInstallDirectory(lease: SandboxLease, path: string, signal?: AbortSignal): Promise<void> {
  await sandboxShell(lease, 'rm -rf "$1"', [path], { signal }).catch(() => undefined);
}
