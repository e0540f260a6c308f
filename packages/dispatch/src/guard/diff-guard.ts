import { OutpostError } from "@outpost/core";

/**
 * Bounds what an unattended agent may change: the work (the worktree against the dispatch's baseline:
 * its commits, uncommitted changes and new files) is measured after the sync back and again right before
 * integrate. A violation fails with code `guard`; the work stays on its branch.
 */
export interface DiffGuard {
  /**
   * Repository-relative paths the agent must not change. A plain path covers itself and everything under it
   * (`.github`); `*` matches within one path segment, `**` across segments (`**\/package-lock.json`).
   */
  readonly protectedPaths?: readonly string[];
  /** Most added plus deleted lines over every changed file (a binary file counts no line). */
  readonly maxChangedLines?: number;
  /** Most changed, added or deleted files. */
  readonly maxChangedFiles?: number;
}

/** Refuses a malformed guard before anything is allocated (code `configuration`). */
export function assertDiffGuard(guard: unknown): asserts guard is DiffGuard | undefined {
  if (guard === undefined) return;
  if (!guard || typeof guard !== "object" || Array.isArray(guard))
    throw configuration("guard must be an object: { protectedPaths?, maxChangedLines?, maxChangedFiles? }.");
  const { protectedPaths, maxChangedLines, maxChangedFiles } = guard as DiffGuard;
  if (protectedPaths !== undefined) {
    if (!Array.isArray(protectedPaths)) throw configuration("guard.protectedPaths must be an array of repository-relative paths.");
    for (const path of protectedPaths as unknown[])
      if (typeof path !== "string" || path.trim() === "" || path.startsWith("/") || path.split("/").includes(".."))
        throw configuration(
          `guard.protectedPaths has ${JSON.stringify(path)}: each entry is a non-empty repository-relative path or pattern, without a leading / or ...`,
        );
  }
  for (const [name, value] of [
    ["maxChangedLines", maxChangedLines],
    ["maxChangedFiles", maxChangedFiles],
  ] as const)
    if (value !== undefined && (typeof value !== "number" || !Number.isInteger(value) || value < 0))
      throw configuration(`guard.${name} must be a non-negative integer; got ${String(value)}.`);
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
