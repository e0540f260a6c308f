import { posix } from "node:path";
import { OutpostError } from "../errors/outpost-error.js";

/**
 * Normalizes a path that must stay inside some root: relative, no `..` escape, no NUL.
 * Returns the normalized `/`-separated path (`""` for the root itself); throws code `workspace` otherwise.
 * Links are not followed here: callers that touch a file system must also refuse links on the way.
 */
export function normalizeRelativePath(path: string, what = "path"): string {
  if (typeof path !== "string") throw escape(String(path), what, "it is not a string");
  if (path.includes("\0")) throw escape(path, what, "it contains a NUL byte");
  if (path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path)) throw escape(path, what, "it is absolute");
  const normalized = posix.normalize(path.replaceAll("\\", "/"));
  if (normalized === ".." || normalized.startsWith("../")) throw escape(path, what, "it leaves the root through ..");
  const trimmed = normalized === "." || normalized === "./" ? "" : normalized.replace(/\/+$/, "");
  return trimmed;
}

/** Joins a root with a relative path that must stay inside it (see normalizeRelativePath). */
export function resolveInside(root: string, path: string, what = "path"): string {
  const relative = normalizeRelativePath(path, what);
  return relative === "" ? posix.normalize(root) : posix.join(root, relative);
}

/** True when `candidate` is `root` or below it (both absolute, normalized). */
export function isInside(root: string, candidate: string): boolean {
  const base = root.endsWith("/") ? root : `${root}/`;
  return candidate === root || candidate.startsWith(base);
}

function escape(path: string, what: string, problem: string): OutpostError {
  return new OutpostError(
    "workspace",
    `Refused ${what} ${JSON.stringify(path)}: ${problem}. Give a path relative to the root that stays inside it.`,
    { details: { path } },
  );
}
