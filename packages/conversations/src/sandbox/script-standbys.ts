import type { SandboxLease } from "@outpost/core";
import type { SandboxProgramName } from "./sandbox-programs.js";
import { runSandboxScript, type SandboxScriptOptions } from "./sandbox-script.js";
import { startScriptStandby, type ScriptStandby } from "./sandbox-script-standby.js";

/**
 * One sandbox script that a store may start ahead of time (`prepareCapture`), at most one waiting per lease:
 * `run` hands the waiting one its input when it fits the options, and otherwise runs the script as usual.
 */
export class ScriptStandbys<Result> {
  private readonly waiting = new WeakMap<SandboxLease, ScriptStandby<Result>>();

  constructor(private readonly program: SandboxProgramName) {}

  /** Starts the script on `lease` (replacing one still waiting there); never throws. */
  prepare(lease: SandboxLease, options: SandboxScriptOptions): void {
    this.waiting.get(lease)?.dispose();
    this.waiting.delete(lease);
    try {
      const standby = startScriptStandby<Result>(lease, this.program, options);
      if (standby) this.waiting.set(lease, standby);
    } catch {
      // Only a head start: `run` starts the script itself.
    }
  }

  run(lease: SandboxLease, input: unknown, options: SandboxScriptOptions): Promise<Result> {
    const standby = this.waiting.get(lease);
    this.waiting.delete(lease);
    if (standby?.fits(options)) return standby.run(input, options.what);
    standby?.dispose();
    return runSandboxScript<Result>(lease, this.program, input, options);
  }
}
