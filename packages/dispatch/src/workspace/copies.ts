import { cp, lstat, mkdir, readdir, readlink, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { isInside, OutpostError } from "@outpost/core";
import type { BranchMode } from "./branch-policy.js";
import { gitStatus } from "../git/run-git.js";

/** Validates `copies` before anything is allocated (code `configuration`). Returns normalized paths. */
export function validateCopies(copies: readonly string[], mode: BranchMode): string[] {
  if (copies.length > 0 && mode === "current") {
    throw new OutpostError(
      "configuration",
      `copies needs a new worktree, but the branch policy is "current". Use branch: { mode: "named", name } or { mode: "integrate" }, or drop copies.`,
    );
  }
  return copies.map((entry) => {
    const refuse = (problem: string): never => {
      throw new OutpostError(
        "configuration",
        `Refused copies entry ${JSON.stringify(entry)}: ${problem}. List paths relative to the repository root, such as ".env" or "config/local.json".`,
        { details: { entry } },
      );
    };
    if (typeof entry !== "string" || entry.trim() === "") refuse("it is empty");
    if (entry.includes("\0")) refuse("it contains a NUL byte");
    if (entry.startsWith("/") || /^[A-Za-z]:[\\/]/.test(entry)) refuse("it is absolute");
    const segments = entry
      .replaceAll("\\", "/")
      .split("/")
      .filter((segment) => segment !== "" && segment !== ".");
    if (segments.includes("..")) refuse("it contains ..");
    if (segments.includes(".git")) refuse("it reaches into .git");
    if (segments.length === 0) refuse("it names the repository root");
    return segments.join("/");
  });
}

/**
 * Copies each entry from the host checkout into the new worktree; absent entries are skipped.
 * Refuses (code `workspace`) a source or destination reached through a link that leaves its tree.
 * Returns the entries that are untracked or ignored in the worktree.
 */
export async function applyCopies(root: string, worktree: string, copies: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const untracked: string[] = [];
  const realRoot = await realpath(root);
  const realWorktree = await realpath(worktree);
  for (const entry of copies) {
    const source = join(root, entry);
    const info = await lstat(source).catch(() => undefined);
    if (!info) continue;
    const realSource = await realpath(source).catch(() => undefined);
    if (realSource === undefined || !isInside(realRoot, realSource)) {
      throw new OutpostError(
        "workspace",
        `Refused to copy ${entry}: it resolves outside the repository. Replace the link with the file itself.`,
        { details: { entry } },
      );
    }
    if (info.isDirectory()) await refuseEscapingLinks(realRoot, source, entry);
    const destination = join(worktree, entry);
    await mkdir(dirname(destination), { recursive: true });
    const realParent = await realpath(dirname(destination));
    if (!isInside(realWorktree, realParent) || relative(realWorktree, realParent).startsWith("..")) {
      throw new OutpostError(
        "workspace",
        `Refused to copy ${entry}: its destination is reached through a link leaving the worktree. Remove that link from the repository.`,
        { details: { entry } },
      );
    }
    signal?.throwIfAborted();
    const filter = () => {
      // Checked per file, so a copy past its limit stops before writing more.
      signal?.throwIfAborted();
      return true;
    };
    await cp(source, destination, { recursive: true, force: true, verbatimSymlinks: true, preserveTimestamps: true, filter });
    const tracked = await gitStatus(worktree, ["ls-files", "--error-unmatch", "--", entry]);
    const clean =
      tracked.status === 0 && (await gitStatus(worktree, ["diff", "--quiet", "--no-ext-diff", "--no-textconv", "--", entry])).status === 0;
    if (!clean) untracked.push(entry);
  }
  return untracked;
}

/** A copied directory may hold links, but none absolute or leading out of the repository. */
async function refuseEscapingLinks(realRoot: string, directory: string, entry: string): Promise<void> {
  for (const name of await readdir(directory, { recursive: true })) {
    const path = join(directory, name);
    const info = await lstat(path);
    if (!info.isSymbolicLink()) continue;
    const target = await readlink(path);
    const landing = resolve(await realpath(dirname(path)), target);
    if (isAbsolute(target) || !isInside(realRoot, landing)) {
      throw new OutpostError(
        "workspace",
        `Refused to copy ${entry}: it holds the link ${relative(directory, path)} → ${target}, which leads out of the repository. Remove that link or list its files instead.`,
        { details: { entry, link: relative(directory, path) } },
      );
    }
  }
}
