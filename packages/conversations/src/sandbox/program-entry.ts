import type { ProfileHooks } from "../bundle/profile-hooks.js";
import { SANDBOX_PROGRAMS, type SandboxProgramName } from "./sandbox-programs.js";
import { SCRIPT_RESULT_MARKER } from "./script-outcome.js";

// The entry of dist/sandbox-programs.cjs (tools/build-sandbox-programs.mjs): one self-contained file, built
// as an IIFE whose value is the global `outpostSandbox`, sent whole as `node -e` and ended by a call of
// `start`. Nothing in it is serialized from the host's code, so no bundler of the host can change it.

type Outcome = { ok: true; value: unknown } | { ok: false; code: string; message: string; details?: Record<string, unknown> };

/** Runs one program on its input; hooks are the session-bundle profile's, for the bundle programs. */
export async function run(name: SandboxProgramName, input: unknown, hooks?: ProfileHooks): Promise<unknown> {
  const program = Object.hasOwn(SANDBOX_PROGRAMS, name) ? (SANDBOX_PROGRAMS[name] as (input: never, hooks: never) => unknown) : undefined;
  if (program === undefined) {
    const known = Object.keys(SANDBOX_PROGRAMS).join(", ");
    throw Object.assign(new Error(`No sandbox program is named ${JSON.stringify(name)} (known: ${known}). Install matching versions.`), {
      outpostCode: "configuration",
    });
  }
  return program(input as never, hooks as never);
}

/**
 * Reads the input, one line of JSON on stdin, runs the program at that line's end (not when stdin's end
 * travels back: a round trip on some platforms), and prints `\n<marker><outcome JSON>\n` as its last output.
 */
export function start(name: SandboxProgramName, hooks?: ProfileHooks): void {
  const chunks: Buffer[] = [];
  let begun = false;
  const begin = () => {
    if (begun) return;
    begun = true;
    const text = Buffer.concat(chunks).toString("utf8").split("\n")[0]!;
    void outcomeOf(() => run(name, text === "" ? null : JSON.parse(text), hooks)).then((outcome) =>
      process.stdout.write(`\n${SCRIPT_RESULT_MARKER}${JSON.stringify(outcome)}\n`),
    );
  };
  process.stdin.on("data", (chunk: Buffer) => {
    chunks.push(chunk);
    if (chunk.includes(10)) begin();
  });
  process.stdin.on("end", begin);
}

async function outcomeOf(work: () => Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    const fields = (typeof error === "object" && error !== null ? error : {}) as {
      outpostCode?: unknown;
      message?: unknown;
      stack?: unknown;
      details?: Record<string, unknown>;
    };
    if (typeof fields.outpostCode === "string")
      return {
        ok: false,
        code: fields.outpostCode,
        message: String(fields.message),
        ...(fields.details ? { details: fields.details } : {}),
      };
    const shown = typeof fields.stack === "string" ? fields.stack : String(error);
    return { ok: false, code: "session", message: `Unexpected failure in the sandbox: ${shown}. Report it with the stack.` };
  }
}

/** The helpers, for tests that drive them step by step in a real process (tests/replace-crash.test.ts). */
export { lib } from "./sandbox-lib.js";

/** The programs this file holds, for tests that check each one ran from the built file. */
export const programNames = Object.keys(SANDBOX_PROGRAMS);
