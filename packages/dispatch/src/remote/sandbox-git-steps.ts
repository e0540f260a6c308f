import type { Readable } from "node:stream";
import { OutpostError, tailLines, type SandboxLease } from "@outpost/core";
import { shellQuote } from "../process/shell-quote.js";
import { sandboxGitConfigArguments } from "./sandbox-git-command.js";

/** One command of a `sandboxGitSteps` script: git (with the engine's configuration) unless `executable`. */
export interface SandboxGitStep {
  readonly executable?: string;
  readonly args: readonly string[];
  /** What the step does, for the error when it fails ("check out the work branch"). */
  readonly what: string;
  /** A failure is not an error: the script goes on (its output is then whatever git printed). */
  readonly optional?: boolean;
}

/** Exit status of the script when step `index` failed: above what git itself exits with. */
const FAILED_STEP_STATUS = 200;
const MOST_STEPS = 50;

/**
 * Runs several git commands in a sandbox as one command, each stopping the script when it fails: a remote
 * sandbox pays a round trip per command (a Docker exec, an API call), which made a seed of eight commands
 * cost a second. The same per-command configuration as `sandboxGit`; returns what the steps printed. Steps
 * are the engine's own arguments, single-quoted for the shell; nothing the sandbox says is trusted.
 */
export async function sandboxGitSteps(
  lease: SandboxLease,
  steps: readonly SandboxGitStep[],
  /** `input`: the script's live stdin (leases with `liveInput`), read by a step such as `cat`. */
  options: { readonly signal?: AbortSignal; readonly input?: Readable } = {},
): Promise<string> {
  if (steps.length === 0 || steps.length > MOST_STEPS) throw new Error(`sandboxGitSteps takes 1 to ${MOST_STEPS} steps`);
  const config = sandboxGitConfigArguments();
  const lines = steps.map((step, index) => {
    const argv = step.executable === undefined ? ["git", ...config, ...step.args] : [step.executable, ...step.args];
    const command = argv.map(shellQuote).join(" ");
    return step.optional ? `${command} || :` : `${command} || exit ${FAILED_STEP_STATUS + index}`;
  });
  const result = await lease.invoke({
    executable: "sh",
    arguments: ["-c", lines.join("\n"), "outpost-git"],
    directory: lease.root,
    signal: options.signal,
    ...(options.input ? { input: options.input } : {}),
    deadlineMs: 600_000,
    retain: 64 * 1024,
  });
  if (result.status === 0) return result.stdout.trim();
  const index = result.status - FAILED_STEP_STATUS;
  const failed = steps[index];
  throw new OutpostError(
    "workspace",
    `Could not ${failed?.what ?? "run git"} in the sandbox (${failed ? "git failed" : `exit ${result.status}`}): ` +
      `${tailLines(result.stderr || result.stdout, 500)}. Check that git is installed in the sandbox image.`,
    { details: { status: result.status, ...(failed ? { failedStep: index } : {}) } },
  );
}
