import { OutpostError } from "@outpost/core";
import type { BranchPolicy, Brief } from "@outpost/dispatch";
import type { ProgramIo, RunFlags } from "../program.js";
import { EXIT_CODES, exitCodeFor } from "../exit-codes.js";
import { loadAgent } from "../agents/load-agent.js";
import { chooseProvider } from "./choose-provider.js";
import { jsonReporter } from "../output/json-reporter.js";
import { progressReporter } from "../output/progress-reporter.js";
import type { Reporter } from "../output/reporter.js";

/** `outpost run`: one dispatch, reported live; resolves with the exit code. */
export async function runCommand(briefText: string, flags: RunFlags, io: ProgramIo): Promise<number> {
  const live = !flags.json && (io.stdout as NodeJS.WriteStream).isTTY === true;
  const reporter: Reporter = flags.json ? jsonReporter(io.stdout) : progressReporter(io.stdout, io.stderr, live);
  const controller = new AbortController();
  // First Ctrl-C: stop the agent's tree and keep the work. A third one while cleanup runs forces the exit.
  let interrupts = 0;
  const onInterrupt = (): void => {
    interrupts += 1;
    if (interrupts === 1) controller.abort(new Error("interrupted (Ctrl-C)"));
    else if (interrupts === 2) io.stderr.write("outpost: still stopping the agent and saving its work; press Ctrl-C again to quit at once.\n");
    else process.exit(EXIT_CODES.aborted);
  };
  process.on("SIGINT", onInterrupt);
  try {
    const [{ dispatch }, agent, provider] = await Promise.all([
      import("@outpost/dispatch"),
      loadAgent({ name: flags.agent, model: flags.model, module: flags.agentModule, baseUrl: flags.baseUrl, executable: flags.executable }),
      chooseProvider({ provider: flags.provider, inheritEnvironment: flags.inheritEnvironment, image: flags.image, network: flags.network, user: flags.user, volumes: flags.volume,
        limits: { cpus: flags.cpus, memoryMb: flags.memoryMb, pidsLimit: flags.pidsLimit, writableRootFilesystem: flags.writableRootFilesystem } }),
    ]);
    reporter.start({ agent: agent.name, provider: provider.name, label: flags.label });
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
      observe: (observation) => reporter.event(observation),
      warn: (message) => reporter.warn(message),
      diagnostic: (message) => { if (flags.verbose || flags.json) reporter.diagnostic(message); },
    });
    reporter.close();
    reporter.result(result, flags.agentModule ? `--agent-module ${flags.agentModule}` : `--agent ${flags.agent}`);
    return result.completed ? EXIT_CODES.success : EXIT_CODES.incomplete;
  } catch (caught) {
    reporter.close();
    const error = OutpostError.isInstance(caught)
      ? caught
      : new OutpostError("process", `Unexpected failure: ${caught instanceof Error ? caught.message : String(caught)}. Please report it with the command you ran.`, { cause: caught });
    reporter.error(error);
    return exitCodeFor(error.code);
  } finally {
    process.removeListener("SIGINT", onInterrupt);
  }
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
