import { OutpostError } from "@outpost/core";
import type { CleanReport, DispatchEntry, RecoveredDispatch } from "@outpost/dispatch";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { removeSandbox } from "./remove-sandbox.js";
import { reopenSandbox } from "./reopen-sandbox.js";

export interface MaintenanceFlags {
  readonly repository?: string;
  readonly json?: boolean;
  readonly dryRun?: boolean;
  /** Drop work a clean or a recovery would keep (asked first unless `yes`). */
  readonly discard?: boolean;
  readonly yes?: boolean;
}

/** `outpost ps`: every dispatch of this repository that left a record. */
export function psCommand(flags: MaintenanceFlags, io: ProgramIo): Promise<number> {
  return guarded(flags, io, async () => {
    const { listDispatches } = await import("@outpost/dispatch");
    const entries = await listDispatches({ repository: flags.repository ?? process.cwd() });
    if (flags.json) {
      for (const entry of entries)
        io.stdout.write(
          `${JSON.stringify({ type: "dispatch", status: entry.status, keptCommits: entry.keptCommits, sandboxCommits: entry.sandboxCommits, ...entry.record })}\n`,
        );
      return;
    }
    if (entries.length === 0) {
      io.stdout.write("No dispatches on this repository.\n");
      return;
    }
    for (const entry of entries) io.stdout.write(`${describeEntry(entry)}\n`);
  });
}

/** `outpost clean [--dry-run] [id…]`. */
export function cleanCommand(ids: readonly string[], flags: MaintenanceFlags, io: ProgramIo): Promise<number> {
  return guarded(flags, io, async () => {
    const { cleanDispatches } = await import("@outpost/dispatch");
    const options = { repository: flags.repository ?? process.cwd(), ids, removeContainer: removeSandbox, reopenSandbox };
    const discard = flags.discard === true && (await discardConfirmed(options, flags, io));
    const report = await cleanDispatches({ ...options, dryRun: flags.dryRun === true, discard });
    if (flags.json) io.stdout.write(`${JSON.stringify({ type: "clean", dryRun: flags.dryRun === true, ...report })}\n`);
    else io.stdout.write(describeReport(report, flags.dryRun === true));
  });
}

/** `outpost recover <id>`. */
export function recoverCommand(id: string, flags: MaintenanceFlags, io: ProgramIo): Promise<number> {
  return guarded(flags, io, async () => {
    if (flags.discard === true) {
      // The work is not wanted: the dispatch is cleaned with its kept work dropped, nothing is merged.
      const { cleanDispatches } = await import("@outpost/dispatch");
      const options = { repository: flags.repository ?? process.cwd(), ids: [id], removeContainer: removeSandbox, reopenSandbox };
      if (!(await discardConfirmed(options, flags, io))) return;
      const report = await cleanDispatches({ ...options, discard: true });
      if (flags.json) io.stdout.write(`${JSON.stringify({ type: "discarded", ...report })}\n`);
      else io.stdout.write(describeReport(report, false));
      return;
    }
    const { recoverDispatch } = await import("@outpost/dispatch");
    const recovered = await recoverDispatch({
      repository: flags.repository ?? process.cwd(),
      id,
      removeContainer: removeSandbox,
      reopenSandbox,
    });
    if (flags.json) io.stdout.write(`${JSON.stringify({ type: "recovered", ...recovered })}\n`);
    else io.stdout.write(`${describeRecovered(recovered)}\n`);
  });
}

/** `outpost unlock <lock> [--force]`: breaks a lock whose holder is gone, or (forced) one that looks alive. */
export function unlockCommand(lock: string, flags: MaintenanceFlags & { readonly force?: boolean }, io: ProgramIo): Promise<number> {
  return guarded(flags, io, async () => {
    const { breakLock } = await import("@outpost/dispatch");
    const broken = await breakLock({ repository: flags.repository ?? process.cwd(), lock, force: flags.force === true });
    if (flags.json) io.stdout.write(`${JSON.stringify({ type: "unlocked", ...broken })}\n`);
    else io.stdout.write(`Removed the lock ${broken.path}, held by ${broken.holder}${broken.stale ? " (gone)" : " (forced)"}.\n`);
  });
}

/** Lists what a discarding clean would drop and asks; false when the user declined (said, nothing done). */
async function discardConfirmed(
  options: { repository: string; ids: readonly string[]; removeContainer: typeof removeSandbox; reopenSandbox: typeof reopenSandbox },
  flags: MaintenanceFlags,
  io: ProgramIo,
): Promise<boolean> {
  const { cleanDispatches } = await import("@outpost/dispatch");
  const plan = await cleanDispatches({ ...options, dryRun: true, discard: true });
  const dropped = plan.cleaned.flatMap((entry) => entry.actions.filter((action) => action.startsWith("discard ")));
  const { confirmDiscard } = await import("./confirm-discard.js");
  if (await confirmDiscard(dropped, flags, io)) return true;
  io.stderr.write("Nothing was discarded.\n");
  return false;
}

async function guarded(flags: MaintenanceFlags, io: ProgramIo, work: () => Promise<void>): Promise<number> {
  try {
    await work();
    return EXIT_CODES.success;
  } catch (caught) {
    const error = OutpostError.isInstance(caught)
      ? caught
      : new OutpostError(
          "process",
          `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}. Please report it with the command you ran.`,
          { cause: caught },
        );
    if (flags.json)
      io.stdout.write(`${JSON.stringify({ type: "error", code: error.code, message: error.message, details: error.details })}\n`);
    else io.stderr.write(`outpost: ${error.code}: ${error.message}\n`);
    return exitCodeFor(error.code);
  }
}

function describeEntry({ record, status, keptCommits, sandboxCommits }: DispatchEntry): string {
  const where = record.branch
    ? `${record.branch}${record.directory !== record.repository ? ` in ${record.directory}` : ""}`
    : record.directory;
  const commits = keptCommits.length > 0 ? `, ${keptCommits.length} unmerged commit(s)` : "";
  const inSandbox =
    sandboxCommits === "unknown"
      ? ", its sandbox may hold commits (recover imports them)"
      : sandboxCommits > 0
        ? `, ${sandboxCommits} commit(s) still in its sandbox`
        : "";
  const failure = record.error ? ` (${record.error.code} in ${record.phase ?? "?"})` : record.phase ? ` (phase ${record.phase})` : "";
  const hint =
    status === "dead" || status === "kept"
      ? ` → outpost recover ${record.dispatchId} | outpost clean ${record.dispatchId} | outpost clean --discard ${record.dispatchId}`
      : "";
  return `${record.dispatchId}  ${status.padEnd(7)}  ${record.agent} on ${record.provider}, ${record.mode ?? "?"} ${where}${commits}${inSandbox}${failure}, started ${record.startedAt}${hint}`;
}

function describeReport(report: CleanReport, dryRun: boolean): string {
  const lines: string[] = [];
  for (const entry of report.cleaned) {
    lines.push(`${entry.dispatchId} (${entry.status})${dryRun ? " would be cleaned:" : ":"}`);
    for (const action of entry.actions) lines.push(`  ${action}`);
    if (entry.kept)
      lines.push(
        `  kept: ${entry.kept.reason}${entry.kept.directory ? ` (${entry.kept.directory})` : ""}; ${entry.kept.sandbox ? "try again with" : "recover with"}: ${entry.kept.recover}` +
          `, or drop it with: outpost clean --discard ${entry.dispatchId}`,
      );
  }
  for (const entry of report.skipped) lines.push(`${entry.dispatchId} left alone: ${entry.reason}`);
  if (lines.length === 0) lines.push("Nothing to clean.");
  return `${lines.join("\n")}\n`;
}

function describeRecovered(recovered: RecoveredDispatch): string {
  if (recovered.target)
    return `Merged ${recovered.branch} into ${recovered.target} (${recovered.integration}); ${recovered.commits.length} commit(s).`;
  if (recovered.directory)
    return `Branch ${recovered.branch} is checked out in ${recovered.directory}; ${recovered.commits.length} unmerged commit(s).`;
  return `Nothing to merge${recovered.branch ? `: the work is on ${recovered.branch}` : ""}; the record was removed.`;
}
