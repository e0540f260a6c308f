import { OutpostError } from "@outpost/core";
import type { BranchPolicy, Brief } from "@outpost/dispatch";
import type { ProgramIo, RunFlags } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { loadAgent } from "../agents/load-agent.js";
import { chooseProvider } from "./choose-provider.js";
import { jsonReporter } from "../output/json-reporter.js";
import { progressReporter } from "../output/progress-reporter.js";
import type { Reporter } from "../output/reporter.js";
import { closableOutput } from "../output/closable-output.js";
import { exitCodeForSignal, handleStopSignals } from "./stop-signals.js";
import { responseFromSchemaFile } from "./json-schema-response.js";
import { steerFromTerminal } from "./terminal-steering.js";

/** `outpost run`: one dispatch, reported live; resolves with the exit code. */
export async function runCommand(briefText: string, flags: RunFlags, io: ProgramIo): Promise<number> {
  const controller = new AbortController();
  // A reader that went away (`| head`) or a closed terminal ends the run like Ctrl-C: agent stopped, work kept.
  let outputClosed = false;
  const stdout = closableOutput(io.stdout, () => {
    outputClosed = true;
    controller.abort(new Error("the output was closed"));
  });
  const stderr = closableOutput(io.stderr, () => undefined);
  const live = !flags.json && (io.stdout as NodeJS.WriteStream).isTTY === true;
  const reporter: Reporter = flags.json ? jsonReporter(stdout) : progressReporter(stdout, stderr, live);
  const signals = handleStopSignals(controller, (text) => stderr.write(text));
  // An aborted dispatch rejects with the signal's reason; this finds the error (and recovery) behind it.
  let abortError: (reason: unknown) => OutpostError | undefined = () => undefined;
  let stopSteering = (): void => undefined;
  try {
    const [{ dispatch, dispatchAbortError, createSteering }, agent, provider, response] = await Promise.all([
      import("@outpost/dispatch"),
      loadAgent({
        name: flags.agent ?? "",
        model: flags.model,
        module: flags.agentModule,
        baseUrl: flags.baseUrl,
        executable: flags.executable,
      }),
      chooseProvider({ provider: flags.provider, options: providerOptions(flags) }),
      flags.response === undefined ? undefined : responseFromSchemaFile(flags.response),
    ]);
    abortError = dispatchAbortError;
    reporter.start({ agent: agent.name, provider: provider.name, label: flags.label });
    // On a terminal, a line typed during the run steers the agent.
    const steering = live && io.stdin?.isTTY === true ? createSteering() : undefined;
    if (steering && io.stdin) {
      stopSteering = steerFromTerminal(io.stdin, steering, (message) => reporter.warn(message));
      reporter.diagnostic("type a line and press Enter to steer the agent");
    }
    const result = await dispatch({
      agent,
      sandboxProvider: provider,
      brief: parseBrief(briefText),
      label: flags.label,
      model: flags.model,
      passes: flags.passes,
      until: flags.until,
      idleMs: flags.idleMs,
      deadlineMs: flags.deadlineMs,
      repository: flags.repository,
      branch: parseBranch(flags.branch),
      copies: flags.copy,
      conversationHome: flags.conversationHome,
      continuation: flags.continue ? { id: flags.continue, fork: flags.fork === true } : undefined,
      signal: controller.signal,
      ...(steering ? { steering } : {}),
      ...(response ? { response } : {}),
      observe: (observation) => reporter.event(observation),
      warn: (message) => reporter.warn(message),
      diagnostic: (message) => {
        if (flags.verbose || flags.json) reporter.diagnostic(message);
      },
    });
    stopSteering();
    reporter.close();
    reporter.result(result, flags.agentModule ? `--agent-module ${flags.agentModule}` : `--agent ${flags.agent ?? ""}`);
    return result.completed ? EXIT_CODES.success : EXIT_CODES.incomplete;
  } catch (caught) {
    stopSteering();
    reporter.close();
    const error = OutpostError.isInstance(caught)
      ? caught
      : (abortError(caught) ??
        new OutpostError(
          "process",
          `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}. Please report it with the command you ran.`,
          { cause: caught },
        ));
    reporter.error(error);
    const signal = signals.received();
    if (error.code === "aborted" && signal) return exitCodeForSignal(signal);
    if (error.code === "aborted" && outputClosed) return EXIT_CODES.outputClosed;
    return exitCodeFor(error.code);
  } finally {
    signals.dispose();
  }
}

/** The provider flags, by the option names provider descriptors declare (each provider refuses what it does not read). */
function providerOptions(flags: RunFlags): Record<string, unknown> {
  const { inheritEnvironment, image, network, user, volume, cpus, memoryMb, pidsLimit, writableRootFilesystem } = flags;
  const named = Object.fromEntries(
    (flags.providerOption ?? []).map((entry) => {
      const equals = entry.indexOf("=");
      if (equals <= 0)
        throw new OutpostError(
          "configuration",
          `--provider-option ${JSON.stringify(entry)} is not name=value. Pass e.g. --provider-option region=eu-west-1.`,
        );
      return [entry.slice(0, equals), entry.slice(equals + 1)];
    }),
  );
  return { inheritEnvironment, image, network, user, volume, cpus, memoryMb, pidsLimit, writableRootFilesystem, ...named };
}

/** `current`, `integrate`, or any other text as the name of a branch in a managed worktree. */
export function parseBranch(value: string): BranchPolicy {
  if (value === "current") return { mode: "current" };
  if (value === "integrate") return { mode: "integrate" };
  return { mode: "named", name: value };
}

/** `@path` reads a brief file (relative to the repository root); anything else is the task itself. */
export function parseBrief(text: string): Brief {
  return text.startsWith("@") && text.length > 1 ? { file: text.slice(1) } : text;
}
