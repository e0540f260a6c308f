import { posix } from "node:path";
import { OutpostError, resolveInside, resolveSandboxPath, type LegalSandboxPath } from "@outpost/core";

/** A sandbox path plus the directory (lease root or home) the sandbox must not leave through a link on the way. */
export type SandboxPath = LegalSandboxPath;

/**
 * A transfer's sandbox path, by core's rule: relative inside root, or absolute under root or home.
 * The anchor is checked again inside the sandbox, where links are resolved.
 */
export function sandboxPath(root: string, home: string, path: string, what: string): SandboxPath {
  assertPlain(path, what);
  return resolveSandboxPath({ root, home }, path, what);
}

/** A command directory: absolute as given (a command may `cd` anywhere anyway), relative inside root. */
export function commandDirectory(root: string, path: string, what: string): string {
  assertPlain(path, what);
  return posix.isAbsolute(path) ? posix.normalize(path) : resolveInside(root, path, what);
}

function assertPlain(path: string, what: string): void {
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
      { details: { path } },
    );
  }
}
