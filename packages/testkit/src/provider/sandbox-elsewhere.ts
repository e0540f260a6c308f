import assert from "node:assert/strict";
import { posix } from "node:path";
import { isInside, type SandboxLease } from "@outpost/core";
import { shell } from "./sandbox-shell.js";

/**
 * Runs `body` with a fresh sandbox directory outside both the lease root and the lease home (a place no
 * transfer may name), holding `secret.txt`; removes it afterwards.
 */
export async function withSandboxElsewhere(lease: SandboxLease, body: (elsewhere: string) => Promise<void>): Promise<void> {
  const name = `outpost-kit-elsewhere-${process.pid}-${Math.random().toString(36).slice(2)}`;
  const candidates = ["/tmp", "/var/tmp", posix.dirname(lease.root), posix.dirname(lease.home)]
    .map((base) => posix.join(base, name))
    .filter((path) => !isInside(lease.root, path) && !isInside(lease.home, path));
  let chosen: string | undefined;
  for (const path of candidates) {
    const made = await shell(lease, 'mkdir -p "$1" && echo "secret outside the lease ✓" > "$1/secret.txt"', [path]);
    if (made.status === 0) {
      chosen = path;
      break;
    }
  }
  assert.ok(
    chosen !== undefined,
    `the kit could not create a directory outside root and home in the sandbox (tried ${candidates.join(", ")}): make /tmp writable`,
  );
  try {
    await body(chosen);
  } finally {
    await shell(lease, 'rm -rf "$1"', [chosen]).catch(() => undefined);
  }
}
