import { OutpostError } from "@outpost/core";
import type { DiffGuard } from "./diff-guard.js";
import type { ChangedPath } from "./measure-changes.js";
import { protectedPathMatcher } from "./protected-path.js";

/** What a guard check found; reported in `details.guard` of the error. */
export interface GuardViolation {
  /** The protected paths the work changed (at most 50 listed). */
  readonly protectedPaths: readonly string[];
  readonly changedLines: number;
  readonly changedFiles: number;
  /** Which bounds were exceeded. */
  readonly exceeded: readonly ("protectedPaths" | "maxChangedLines" | "maxChangedFiles")[];
}

/** Throws code `guard` when the changes break the guard; `when` names the check (`syncBack`, `integrate`). */
export function checkGuard(guard: DiffGuard, changes: readonly ChangedPath[], when: string): void {
  const matchers = (guard.protectedPaths ?? []).map(protectedPathMatcher);
  const touched = changes.filter((change) => matchers.some((matches) => matches(change.path))).map((change) => change.path);
  const changedLines = changes.reduce((sum, change) => sum + change.added + change.deleted, 0);
  const changedFiles = changes.length;
  const exceeded: GuardViolation["exceeded"][number][] = [];
  if (touched.length > 0) exceeded.push("protectedPaths");
  if (guard.maxChangedLines !== undefined && changedLines > guard.maxChangedLines) exceeded.push("maxChangedLines");
  if (guard.maxChangedFiles !== undefined && changedFiles > guard.maxChangedFiles) exceeded.push("maxChangedFiles");
  if (exceeded.length === 0) return;
  const reasons = [
    touched.length > 0 ? `it changed protected paths (${touched.slice(0, 10).join(", ")}${touched.length > 10 ? ", …" : ""})` : "",
    exceeded.includes("maxChangedLines") ? `it changed ${changedLines} lines (guard.maxChangedLines is ${guard.maxChangedLines})` : "",
    exceeded.includes("maxChangedFiles") ? `it changed ${changedFiles} files (guard.maxChangedFiles is ${guard.maxChangedFiles})` : "",
  ].filter(Boolean);
  const violation: GuardViolation = { protectedPaths: touched.slice(0, 50), changedLines, changedFiles, exceeded };
  throw new OutpostError(
    "guard",
    `The agent's work breaks the dispatch's guard (checked at ${when}): ${reasons.join("; ")}. ` +
      `Nothing was integrated; the work stays on its branch for review (see details.recovery).`,
    { details: { guard: violation, check: when } },
  );
}
