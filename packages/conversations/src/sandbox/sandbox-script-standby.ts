import { PassThrough } from "node:stream";
import type { SandboxProgramName } from "./sandbox-programs.js";
import type { CommandResult, SandboxLease } from "@outpost/core";
import {
  hasScriptOutcome,
  inputLine,
  invokeScript,
  runSandboxScript,
  scriptResult,
  scriptSource,
  type SandboxScriptOptions,
} from "./sandbox-script.js";

/** A sandbox script started ahead of time, waiting for its input. */
export interface ScriptStandby<Result> {
  /** Whether it was started with these options (its environment is fixed at start). */
  fits(options: SandboxScriptOptions): boolean;
  /**
   * Hands the waiting process its input and returns its result. When the process is gone or ended without
   * an outcome (something in the sandbox killed it while it waited), the script runs again as usual.
   */
  run(input: unknown, what: string): Promise<Result>;
  /** Ends the waiting process unused. */
  dispose(): void;
}

/**
 * Starts `program` as `runSandboxScript` would, except that its input comes later: node's start (most of a
 * short script's cost) happens while something else runs. Only where a waiting process costs nothing
 * (`lease.idleInput` with `liveInput`) and the script would run in the sandbox; undefined otherwise.
 */
export function startScriptStandby<Result>(
  lease: SandboxLease,
  program: SandboxProgramName,
  options: SandboxScriptOptions,
): ScriptStandby<Result> | undefined {
  if (options.local || lease.liveInput !== true || lease.idleInput !== true) return undefined;
  const input = new PassThrough();
  const ending = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, ending.signal]) : ending.signal;
  const finished: Promise<CommandResult | undefined> = invokeScript(lease, scriptSource(program, options), options, {
    input,
    signal,
  }).catch(() => undefined);
  const key = environmentKey(options);
  let used = false;
  return {
    fits: (wanted) => !used && !wanted.local && environmentKey(wanted) === key && wanted.hooks === options.hooks,
    async run(value, what) {
      used = true;
      input.end(inputLine(value) ?? "");
      const result = await finished;
      if (result !== undefined && hasScriptOutcome(result)) return scriptResult<Result>(result, { what });
      return runSandboxScript<Result>(lease, program, value, { ...options, what });
    },
    dispose() {
      used = true;
      ending.abort();
      input.destroy();
    },
  };
}

function environmentKey(options: SandboxScriptOptions): string {
  return JSON.stringify(Object.entries(options.environment ?? {}).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0)));
}
