import { OutpostError } from "@outpost/core";
import type { DispatchOptions, DispatchResult } from "@outpost/dispatch";
import type { ProgramIo } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { jsonReporter } from "./json-reporter.js";
import { progressReporter } from "./progress-reporter.js";
import type { Reporter } from "./reporter.js";
import { closableOutput } from "./closable-output.js";
import { errorInCliWords, inCliWords } from "./cli-words.js";
import { exitCodeForSignal, handleStopSignals } from "../run/stop-signals.js";
import { jsonRedaction } from "./json-redaction.js";

/** What a command hands every dispatch it reports: the stop signal and the reporting callbacks. */
export interface ReportedRun {
  readonly reporter: Reporter;
  readonly options: Required<Pick<DispatchOptions, "signal" | "observe" | "warn" | "diagnostic">>;
}

/** How the command ended the dispatch it ran. */
export interface ReportedOutcome {
  readonly result: DispatchResult;
  /** How the command line named the agent (`--agent <name>`), for the continue hint. */
  readonly agentOption: string | undefined;
  /** Lines printed after the result in the progress display (the JSON result carries them as fields). */
  readonly footer?: readonly string[];
}

/**
 * Runs one dispatch with the progress display (or JSON lines), Ctrl-C and closed-output handling, and maps
 * its end to the exit code. `run` and `replay` share it, so a replay looks like the run it replays.
 */
export async function reportedDispatch(
  flags: { readonly json?: boolean; readonly verbose?: boolean; readonly redact?: readonly string[] },
  io: ProgramIo,
  run: (reported: ReportedRun) => Promise<ReportedOutcome>,
): Promise<number> {
  const controller = new AbortController();
  // A reader that went away (`| head`) or a closed terminal ends the run like Ctrl-C: agent stopped, work kept.
  let outputClosed = false;
  const stdout = closableOutput(io.stdout, () => {
    outputClosed = true;
    controller.abort(new Error("the output was closed"));
  });
  const stderr = closableOutput(io.stderr, () => undefined);
  const live = !flags.json && (io.stdout as NodeJS.WriteStream).isTTY === true;
  const reporter: Reporter = flags.json ? jsonReporter(stdout, await jsonRedaction(flags.redact)) : progressReporter(stdout, stderr, live);
  const signals = handleStopSignals(controller, (text) => stderr.write(text));
  try {
    const { result, agentOption, footer } = await run({
      reporter,
      options: {
        signal: controller.signal,
        observe: (observation) => reporter.event(observation),
        warn: (message) => reporter.warn(inCliWords(message)),
        diagnostic: (message) => {
          if (flags.verbose || flags.json) reporter.diagnostic(message);
        },
      },
    });
    reporter.close();
    reporter.result(result, agentOption);
    if (!flags.json && footer?.length) stdout.write(`${footer.join("\n")}\n`);
    return result.completed ? EXIT_CODES.success : EXIT_CODES.incomplete;
  } catch (caught) {
    reporter.close();
    // An aborted dispatch rejects with the signal's reason; this finds the error (and recovery) behind it.
    const { dispatchAbortError } = await import("@outpost/dispatch");
    const error = OutpostError.isInstance(caught)
      ? caught
      : (dispatchAbortError(caught) ??
        new OutpostError(
          "process",
          `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}. Please report it with the command you ran.`,
          { cause: caught },
        ));
    reporter.error(errorInCliWords(error));
    const signal = signals.received();
    if (error.code === "aborted" && signal) return exitCodeForSignal(signal);
    if (error.code === "aborted" && outputClosed) return EXIT_CODES.outputClosed;
    return exitCodeFor(error.code);
  } finally {
    signals.dispose();
  }
}
