import { OutpostError } from "@outpost/core";

/** What a sync back may write on the host (`limits.syncBackBytes`, `limits.syncBackFiles`). */
export interface SyncBackBudget {
  readonly bytes: number;
  readonly files: number;
}

/** No budget: for the rescue of commits alone, which writes no files. */
export const UNBOUNDED: SyncBackBudget = { bytes: Number.MAX_SAFE_INTEGER, files: Number.MAX_SAFE_INTEGER };

/** Exit status of the sync-back command when the files it would send are over the budget. */
export const OVER_BUDGET = 203;

/**
 * Shell function for the sync-back command, run on `$out/status` before anything is packed or sent: counts
 * the paths it would send and sums their apparent sizes (a sparse file counts whole, as it would be written
 * on the host), and exits OVER_BUDGET with `outpost-budget <files> <bytes>` on stderr once either is over
 * `$maxfiles` / `$maxbytes`. Only regular files are measured (links are sent as links); a name with a line
 * break splits into names that are not there, which the host's own count, while writing, still catches.
 * Sizes come from `wc -c` in batches (it reads a regular file's size, not its bytes, with GNU coreutils).
 */
export const BUDGET_FUNCTION = `budget() {
  [ -s "$out/status" ] || return 0
  tr '\\0' '\\n' < "$out/status" | grep -v -e '^.D' -e '^D' | cut -c4- > "$out/budget.paths"
  files=$(($(wc -l < "$out/budget.paths")))
  [ "$files" -le "$maxfiles" ] || { echo "outpost-budget $files ?" >&2; exit ${OVER_BUDGET}; }
  bytes=0
  set --
  while IFS= read -r path; do
    [ -f "./$path" ] && [ ! -L "./$path" ] || continue
    set -- "$@" "./$path"
    [ $# -lt 256 ] || { measure "$@"; set --; }
  done < "$out/budget.paths"
  [ $# -eq 0 ] || measure "$@"
  rm -f "$out/budget.paths"
}
measure() {
  bytes=$((bytes + $(wc -c -- "$@" | tail -n 1 | awk '{ print $1 }')))
  [ "$bytes" -le "$maxbytes" ] || { echo "outpost-budget $files $bytes" >&2; exit ${OVER_BUDGET}; }
}`;

/** The refusal when the sandbox's files are over the budget, counted in the sandbox or on the host. */
export function overBudget(budget: SyncBackBudget, found: { files?: number; bytes?: number }, where: string): OutpostError {
  const files = found.files !== undefined && found.files > budget.files;
  const what = files
    ? `${found.files} files, over limits.syncBackFiles (${budget.files})`
    : `${found.bytes ?? "more than"} bytes, over limits.syncBackBytes (${budget.bytes}; sparse files count at their full size)`;
  return new OutpostError(
    "limit",
    `The sandbox's uncommitted files were refused ${where}: ${what}. The host worktree is untouched. ` +
      `Have the agent commit or delete what should not come back, or raise limits.${files ? "syncBackFiles" : "syncBackBytes"}.`,
    { details: { ...found, budget: { ...budget } } },
  );
}

/** Parses the sandbox's `outpost-budget <files> <bytes>` line from the command's stderr. */
export function budgetFound(stderr: string): { files?: number; bytes?: number } {
  const match = /outpost-budget (\d+) (\d+|\?)/.exec(stderr);
  if (!match) return {};
  return { files: Number(match[1]), ...(match[2] === "?" ? {} : { bytes: Number(match[2]) }) };
}

/** Counts files and bytes as the host stages them; throws `overBudget` once either is over. */
export class BudgetMeter {
  private files = 0;
  private bytes = 0;

  constructor(private readonly budget: SyncBackBudget) {}

  /** One more file or link of `size` bytes (its declared or written size). */
  add(size: number): void {
    this.files += 1;
    this.bytes += size;
    if (this.files > this.budget.files || this.bytes > this.budget.bytes)
      throw overBudget(this.budget, { files: this.files, bytes: this.bytes }, "on the host while they were written");
  }
}
