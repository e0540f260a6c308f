import { OutpostError } from "@outpost/core";
import type { BranchPolicy, Brief, DiffGuard } from "@outpost/dispatch";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { ProgramIo, RunFlags } from "../program.js";
import { checkoutRoot, readConfig } from "../config/config-file.js";
import { withConfigDefaults, type RunDefaults } from "../config/run-defaults.js";
import { loadAgent } from "../agents/load-agent.js";
import { chooseProvider } from "./choose-provider.js";
import { reportedDispatch } from "../output/reported-dispatch.js";
import { responseFromSchemaFile } from "./json-schema-response.js";
import { steerFromTerminal } from "./terminal-steering.js";
import { redactionOf } from "./redact-flags.js";

/** `outpost run`: one dispatch, reported live; resolves with the exit code. */
export async function runCommand(
  briefText: string,
  commandLine: RunFlags,
  io: ProgramIo,
  given: ReadonlySet<string> = new Set(Object.keys(commandLine)),
): Promise<number> {
  return reportedDispatch(commandLine, io, async ({ reporter, options }) => {
    const { flags, providerDefaults } = await runFlags(commandLine, given);
    const chosen = chooseProvider({ provider: flags.provider, options: providerOptions(flags), defaults: providerDefaults });
    const [{ dispatch, createSteering, loadPricing }, agent, provider, response] = await Promise.all([
      import("@outpost/dispatch"),
      // On the host, the project's own node_modules/.bin/<cli> runs, as `outpost doctor` finds it.
      chosen.then((sandbox) =>
        loadAgent({
          name: flags.agent ?? "",
          model: flags.model,
          module: flags.agentModule,
          baseUrl: flags.baseUrl,
          executable: flags.executable,
          version: flags.agentVersion,
          ...(sandbox.placement === "host" ? { projectDirectory: flags.repository ?? process.cwd() } : {}),
        }),
      ),
      chosen,
      flags.response === undefined ? undefined : responseFromSchemaFile(flags.response),
    ]);
    const pricing = flags.pricing === undefined ? undefined : await loadPricing(flags.pricing);
    reporter.start({ agent: agent.name, provider: provider.name, label: flags.label });
    // On a terminal (the progress display on stdout, a person on stdin), a line typed during the run steers the agent.
    const live = !flags.json && (io.stdout as NodeJS.WriteStream).isTTY === true;
    const steering = live && io.stdin?.isTTY === true ? createSteering() : undefined;
    const stopSteering =
      steering && io.stdin ? steerFromTerminal(io.stdin, steering, (message) => reporter.warn(message)) : () => undefined;
    if (steering) reporter.diagnostic("type a line and press Enter to steer the agent");
    const result = await dispatch({
      ...options,
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
      ...(flags.requireConversation ? { requireConversation: assertCapturing(agent) } : {}),
      continuation: flags.continue ? { id: flags.continue, fork: flags.fork === true } : undefined,
      // --record keeps each commit with a verified patch, so `outpost replay` rebuilds it.
      ...(flags.record ? { logging: { replayable: true } } : {}),
      ...(steering ? { steering } : {}),
      ...(response ? { response } : {}),
      ...(pricing ? { pricing } : {}),
      ...guardOf(flags),
      ...(flags.redact?.length ? { redact: redactionOf(flags.redact) } : {}),
      ...(flags.watchdog === undefined ? {} : { watchdog: { repeatedToolCalls: flags.watchdog, repeatedTexts: flags.watchdog } }),
    }).finally(stopSteering);
    const journal = flags.record ? result.journal?.key : undefined;
    return {
      result,
      agentOption: flags.agentModule ? `--agent-module ${flags.agentModule}` : `--agent ${flags.agent ?? ""}`,
      ...(journal ? { footer: [`journal: ${journal} (replay with: outpost replay ${journal})`] } : {}),
    };
  });
}

/** The command line over `.outpost/config.json`; refuses a missing checkout or agent in the command line's words. */
async function runFlags(commandLine: RunFlags, given: ReadonlySet<string>): Promise<RunDefaults> {
  const from = commandLine.repository ?? process.cwd();
  if (commandLine.repository !== undefined && !existsSync(commandLine.repository))
    throw new OutpostError("configuration", `--repository ${commandLine.repository}: no such folder. Pass a path inside a git checkout.`);
  const root = checkoutRoot(from);
  if (root === undefined)
    throw new OutpostError(
      "configuration",
      `${resolve(from)} is not inside a git checkout. Run outpost in one (git init first), or pass --repository <path>.`,
    );
  const defaults = withConfigDefaults(commandLine, given, await readConfig(root));
  if (defaults.flags.agent === undefined && defaults.flags.agentModule === undefined)
    throw new OutpostError(
      "configuration",
      'Name the agent: --agent <name> (`outpost agents` lists them) or --agent-module <path>, or set "agent" in .outpost/config.json (`outpost init`).',
    );
  if (defaults.flags.continue !== undefined) await assertContinueId(defaults.flags.continue);
  const branch = defaults.flags.branch;
  if (branch !== "current" && branch !== "integrate" && !(await validBranchName(branch, root)))
    throw new OutpostError(
      "configuration",
      `--branch ${JSON.stringify(branch)} is not a valid branch name (git check-ref-format --branch). Pass current, integrate or a valid name.`,
    );
  return defaults;
}

/** A malformed `--continue` id is a usage error, by the rule the conversation stores apply. */
async function assertContinueId(id: string): Promise<void> {
  const { assertConversationId } = await import("@outpost/conversations");
  try {
    assertConversationId(id);
  } catch (error) {
    throw new OutpostError(
      "configuration",
      `--continue ${JSON.stringify(id).slice(0, 80)} is not a conversation id (1-200 letters, digits, '.', '_' or '-', never ".."). ` +
        "Pass the id a run printed after `conversation:`.",
      { cause: error },
    );
  }
}

/** Asked of git in the checkout, through the engine's hardened runner: nothing the repository configures runs. */
async function validBranchName(name: string, root: string): Promise<boolean> {
  const { hardenedGit } = await import("@outpost/dispatch");
  return (await hardenedGit(root, ["check-ref-format", "--branch", name])).status === 0;
}

/** --require-conversation with an agent that keeps no conversation is refused in the command line's words. */
function assertCapturing(agent: { readonly name: string; readonly storage?: unknown; readonly capture?: boolean }): true {
  if (!agent.storage || agent.capture === false)
    throw new OutpostError(
      "configuration",
      `--require-conversation: ${agent.name} keeps no conversation that could be captured. Drop --require-conversation for this agent.`,
    );
  return true;
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

/** `--protect`, `--max-changed-lines` and `--max-changed-files` as the `guard` option (none given: no guard). */
function guardOf(flags: RunFlags): { guard?: DiffGuard } {
  const guard: DiffGuard = {
    ...(flags.protect ? { protectedPaths: flags.protect } : {}),
    ...(flags.maxChangedLines === undefined ? {} : { maxChangedLines: flags.maxChangedLines }),
    ...(flags.maxChangedFiles === undefined ? {} : { maxChangedFiles: flags.maxChangedFiles }),
  };
  return Object.keys(guard).length === 0 ? {} : { guard };
}
