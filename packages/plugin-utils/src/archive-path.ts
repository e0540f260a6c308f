import { posix } from "node:path";
import { OutpostError } from "@outpost/core";

/**
 * Rule: a path inside a sandbox tree (an archive entry, a manifest entry) is POSIX: `/` is the only
 * separator, so a backslash is an ordinary character of a name and is kept (core's `normalizeRelativePath`
 * reads it as a separator, which would put `a\b` at `a/b`). NUL, absolute paths and `..` that leaves the
 * tree are refused; `.` segments and trailing slashes are dropped; "" is the top.
 */
export function normalizeTreePath(path: string, what: string): string {
  if (typeof path !== "string") throw refused(String(path), what, "it is not a string");
  if (path.includes("\0")) throw refused(path, what, "it contains a NUL byte");
  if (path.startsWith("/")) throw refused(path, what, "it is absolute");
  const normalized = posix.normalize(path);
  if (normalized === ".." || normalized.startsWith("../")) throw refused(path, what, "it leaves the tree through ..");
  return normalized === "." || normalized === "./" ? "" : normalized.replace(/\/+$/, "");
}

function refused(path: string, what: string, problem: string): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused ${what} ${JSON.stringify(path)}: ${problem}. Give a path relative to the tree that stays inside it.`,
    {
      details: { path },
    },
  );
}
