import { posix } from "node:path";
import { OutpostError, resolveInside, resolveSandboxPath, type LegalSandboxPath, type SandboxAnchors } from "@outpost/core";

/**
 * Rule: a transfer's sandbox path is core's legal sandbox path (relative inside the lease root, or
 * absolute under the root or the home) and holds no NUL or newline, which no line-based tool inside a
 * sandbox can carry. Links are not followed here: the provider still refuses a link on the way that
 * leaves the returned `anchor`, where the links can be seen.
 */
export function resolveTransferPath(lease: SandboxAnchors, path: string, what: string): LegalSandboxPath {
  assertPlainPath(path, what);
  return resolveSandboxPath(lease, path, what);
}

/**
 * Rule: a command's working directory is taken as given when absolute (a command may `cd` anywhere
 * anyway), and must stay inside `root` when relative; empty, NUL and newline are refused.
 */
export function resolveCommandDirectory(root: string, path: string, what: string): string {
  assertPlainPath(path, what);
  return posix.isAbsolute(path) ? posix.normalize(path) : resolveInside(root, path, what);
}

function assertPlainPath(path: string, what: string): void {
  if (typeof path !== "string" || path === "") {
    throw new OutpostError(
      "workspace",
      `Refused ${what} ${JSON.stringify(path)}: give an absolute sandbox path or one relative to the lease root.`,
    );
  }
  if (path.includes("\0") || path.includes("\n")) {
    throw new OutpostError(
      "workspace",
      `Refused ${what} ${JSON.stringify(path)}: it contains a NUL or newline character. Use a plain path.`,
      {
        details: { path },
      },
    );
  }
}
