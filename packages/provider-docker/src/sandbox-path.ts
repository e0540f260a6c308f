import { posix } from "node:path";
import { OutpostError, isInside, resolveInside } from "@outpost/core";

/** A sandbox path plus the directory the container must not leave through a link on the way to it. */
export interface SandboxPath {
  readonly path: string;
  /** The lease root or home when the path lies inside one of them, otherwise "/". */
  readonly anchor: string;
}

/** Absolute paths are taken as given; relative ones are resolved against `root` and may not escape it. */
export function sandboxPath(root: string, home: string, path: string, what: string): SandboxPath {
  if (typeof path !== "string" || path === "") {
    throw new OutpostError("workspace", `Refused ${what} ${JSON.stringify(path)}: give an absolute sandbox path or one relative to the lease root.`);
  }
  if (path.includes("\0") || path.includes("\n")) {
    throw new OutpostError("workspace", `Refused ${what} ${JSON.stringify(path)}: it contains a NUL or newline character. Use a plain path.`, { details: { path } });
  }
  const full = posix.isAbsolute(path) ? posix.normalize(path) : resolveInside(root, path, what);
  const anchor = isInside(root, full) ? root : isInside(home, full) ? home : "/";
  return { path: full, anchor };
}
