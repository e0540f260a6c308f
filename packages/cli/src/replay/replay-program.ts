import type { Command } from "../commander.js";
import type { ProgramIo } from "../program.js";
import type { ReplayFlags } from "./replay-command.js";

/** Adds `outpost replay <reference>` to the command tree. */
export function addReplayCommand(program: Command, io: ProgramIo): void {
  program
    .command("replay")
    .description(
      "Replay a journal recorded with `outpost run --record`: the recorded events, usage and commits again, with no model, key or network.",
    )
    .argument("<reference>", "the journal reference `outpost run --record` printed (journals/<id>/index.json, or the id)")
    .option("--divergence <policy>", "fail: stop at the first divergence from the recording; warn: report each and go on", "fail")
    .option("-p, --provider <provider>", "installed sandbox provider to replay in (nothing runs in it but git)", "local")
    .option("-b, --branch <policy>", 'branch policy, as given to the recorded run: "current", "integrate", or a branch name', "current")
    .option("--until <marker>", "end marker the run was recorded with (repeatable; default <outpost>done</outpost>)", collect)
    .option("-r, --repository <path>", "path inside the git checkout the run was recorded in (default: current directory)")
    .option(
      "--from <path>",
      "folder holding the journal's storage (a checkout, a copy of one, its .outpost or .outpost/storage), when not the repository replayed in",
    )
    .option("--json", "print one JSON event per line instead of the progress display")
    .option("-v, --verbose", "also show diagnostics")
    .exitOverride()
    .action(async (reference: string, flags: ReplayFlags) => {
      const { replayCommand } = await import("./replay-command.js");
      io.setExitCode(await replayCommand(reference, flags, io));
    });
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
