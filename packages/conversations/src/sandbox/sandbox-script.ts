import { createRequire } from "node:module";
import type { Command, CommandResult, SandboxLease } from "@outpost/core";
import { OutpostError, isOutpostError, tailLines, type OutpostErrorCode } from "@outpost/core";
import type { ProfileHooks } from "../bundle/profile-hooks.js";
import { sandboxProgramsSource } from "./program-file.js";
import type { SandboxProgramName } from "./sandbox-programs.js";
import { SCRIPT_RESULT_MARKER, ScriptOutcomeWatch } from "./script-outcome.js";

export interface SandboxScriptOptions {
  /** Source of the session-bundle profile's hooks, an object expression (`profileHooksSource`). */
  readonly hooks?: string;
  readonly signal?: AbortSignal;
  readonly what: string;
  /**
   * Host placement (`ConversationContext.local`): the sandbox's files are the host's, so the same code runs
   * in this process instead of a `node` child, with the lease's values of `variables` (read once per lease).
   */
  readonly local?: boolean;
  readonly variables?: readonly string[];
  /** Values of some of `variables` that are known (the agent's own): given to the script as they are. */
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * Runs one of the sandbox programs (`sandbox-programs.ts`) inside the sandbox with `node -e`, from the
 * self-contained file the build wrote: the input goes in on stdin as one line of JSON (inputLine) and the
 * result comes back on stdout after a marker. An error thrown there with an `outpostCode` property becomes
 * an `OutpostError` with that code here.
 */
export async function runSandboxScript<Result>(
  lease: SandboxLease,
  program: SandboxProgramName,
  input: unknown,
  options: SandboxScriptOptions,
): Promise<Result> {
  if (options.local) return runInProcess<Result>(lease, program, input, options);
  const result = await invokeScript(lease, scriptSource(program, options), options, { stdin: inputLine(input) });
  return scriptResult<Result>(result, options);
}

/** Starts `node -e source` in the sandbox; `start` says how its stdin comes (all at once, or live). */
export async function invokeScript(
  lease: SandboxLease,
  source: string,
  options: SandboxScriptOptions,
  start: Pick<Command, "stdin" | "input" | "signal">,
): Promise<CommandResult> {
  const signal = start.signal ?? options.signal;
  const outcome = new ScriptOutcomeWatch();
  try {
    const running = lease.invoke({
      executable: "node",
      arguments: ["-e", source],
      ...(start.stdin === undefined ? {} : { stdin: start.stdin }),
      ...(start.input === undefined ? {} : { input: start.input }),
      retain: 4 * 1024 * 1024,
      ...(options.environment && Object.keys(options.environment).length > 0 ? { variables: { ...options.environment } } : {}),
      ...(signal ? { signal } : {}),
      observe: outcome.observe,
    });
    // Once the outcome is printed the script only exits: what its end reports later changes nothing.
    running.catch(() => undefined);
    return await Promise.race([running, outcome.complete]);
  } catch (error) {
    if (isOutpostError(error)) throw error;
    throw new OutpostError(
      "process",
      `Could not run node in the sandbox to ${options.what}: ${describe(error)}. The sandbox needs node on its PATH.`,
      { cause: error },
    );
  }
}

/** Whether the script got as far as printing its outcome (a value or its own error). */
export function hasScriptOutcome(result: CommandResult): boolean {
  return result.stdout.includes(SCRIPT_RESULT_MARKER);
}

/** The script's result from its output: its value, its own error (an `OutpostError` it chose), or code `process`. */
export function scriptResult<Result>(result: CommandResult, options: Pick<SandboxScriptOptions, "what">): Result {
  const at = result.stdout.lastIndexOf(SCRIPT_RESULT_MARKER);
  if (at === -1) {
    throw new OutpostError(
      "process",
      `The sandbox script that should ${options.what} exited with status ${result.status} and no result: ` +
        `${tailLines(result.stderr, 800) || "no output"}. Check that node (18 or later) is on the sandbox PATH.`,
      { details: { status: result.status } },
    );
  }
  let outcome: { ok: true; value: Result } | { ok: false; code?: string; message: string; details?: Record<string, unknown> };
  try {
    outcome = JSON.parse(result.stdout.slice(at + SCRIPT_RESULT_MARKER.length)) as typeof outcome;
  } catch (error) {
    throw new OutpostError(
      "process",
      `The sandbox script that should ${options.what} printed a result that is not JSON (status ${result.status}). Check that nothing else writes to its stdout.`,
      { cause: error, details: { status: result.status } },
    );
  }
  if (outcome.ok) return outcome.value;
  const code = (outcome.code ?? "session") as OutpostErrorCode;
  throw new OutpostError(code, outcome.message, outcome.details ? { details: outcome.details } : {});
}

/** The script's input: one line of JSON (JSON.stringify escapes every newline inside it); none for undefined. */
export function inputLine(input: unknown): string | undefined {
  const json = JSON.stringify(input) as string | undefined;
  return json === undefined ? undefined : `${json}\n`;
}

const nodeRequire = createRequire(import.meta.url);
const leaseVariables = new WeakMap<SandboxLease, Map<string, string | undefined>>();

async function runInProcess<Result>(
  lease: SandboxLease,
  program: SandboxProgramName,
  input: unknown,
  options: SandboxScriptOptions,
): Promise<Result> {
  const known = leaseVariables.get(lease) ?? new Map<string, string | undefined>();
  leaseVariables.set(lease, known);
  const env: Record<string, string> = {};
  for (const name of options.variables ?? []) {
    const given = options.environment?.[name];
    if (given !== undefined) {
      env[name] = given;
      continue;
    }
    if (!known.has(name)) {
      // printenv exits 1 when the variable is unset: the value the lease's own commands would see.
      const result = await lease.invoke({
        executable: "printenv",
        arguments: [name],
        ...(options.signal ? { signal: options.signal } : {}),
      });
      known.set(name, result.status === 0 ? result.stdout.replace(/\n$/, "") : undefined);
    }
    const value = known.get(name);
    if (value !== undefined) env[name] = value;
  }
  try {
    // The same file as in a sandbox, evaluated with the lease's variables as its `process.env`.
    const { sandbox, hooks } = inProcessFactory(options.hooks)(nodeRequire, { env, pid: process.pid, kill: process.kill.bind(process) });
    const value = await sandbox.run(program, JSON.parse(JSON.stringify(input)), hooks);
    return (value === undefined ? undefined : JSON.parse(JSON.stringify(value))) as Result;
  } catch (error) {
    const fields = (typeof error === "object" && error !== null ? error : {}) as {
      outpostCode?: unknown;
      message?: unknown;
      details?: Record<string, unknown>;
    };
    if (typeof fields.outpostCode === "string") {
      throw new OutpostError(
        fields.outpostCode as OutpostErrorCode,
        String(fields.message),
        fields.details ? { details: fields.details } : {},
      );
    }
    throw new OutpostError("session", `Unexpected failure while trying to ${options.what}: ${describe(error)}. Report it with the stack.`, {
      cause: error,
    });
  }
}

/** The `node -e` text that runs `program`: the programs' file, then the call that starts it on stdin. */
export function scriptSource(program: SandboxProgramName, options: Pick<SandboxScriptOptions, "hooks">): string {
  return `"use strict";\n${sandboxProgramsSource()}\noutpostSandbox.start(${JSON.stringify(program)}, ${options.hooks ?? "undefined"});\n`;
}

interface InProcessPrograms {
  readonly sandbox: { run(program: SandboxProgramName, input: unknown, hooks?: ProfileHooks): Promise<unknown> };
  readonly hooks?: ProfileHooks;
}
type InProcessFactory = (require: NodeJS.Require, process: unknown) => InProcessPrograms;
const inProcessFactories = new Map<string, InProcessFactory>();

/** The programs' file compiled once per hooks source; each call runs it afresh with its own `process`. */
function inProcessFactory(hooks: string | undefined): InProcessFactory {
  const key = hooks ?? "";
  let factory = inProcessFactories.get(key);
  if (factory === undefined) {
    const body = `"use strict";\n${sandboxProgramsSource()}\nreturn { sandbox: outpostSandbox, hooks: (${hooks ?? "undefined"}) };`;
    factory = new Function("require", "process", body) as InProcessFactory;
    inProcessFactories.set(key, factory);
  }
  return factory;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
