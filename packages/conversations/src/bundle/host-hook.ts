import { runInNewContext } from "node:vm";
import { OutpostError } from "@outpost/core";
import { TRANSPILER_HELPERS } from "../sandbox/transpiler-helpers.js";

/**
 * Runs a serialized hook on the host in a fresh context, so it sees exactly what it would see in the
 * sandbox: its arguments and the language built-ins, nothing from the module that defined it.
 */
export function runHostHook<Result>(name: string, format: string, source: string, parameters: readonly unknown[]): Result {
  try {
    const hook = runInNewContext(`${TRANSPILER_HELPERS}\n(${source})`, Object.create(null), { timeout: 5000 }) as (
      ...values: unknown[]
    ) => Result;
    return hook(...parameters);
  } catch (error) {
    // Errors from the fresh context are not instances of this realm's Error: read them structurally.
    const fields = typeof error === "object" && error !== null ? (error as { message?: unknown; name?: unknown }) : {};
    const message = fields.message === undefined ? String(error) : String(fields.message);
    const reference = fields.name === "ReferenceError";
    throw new OutpostError(
      reference ? "configuration" : "session",
      reference
        ? `The ${name} hook of the ${format} profile is not self-contained: ${message}. Hooks may use only their arguments and the helpers they are given.`
        : `The ${name} hook of the ${format} profile threw: ${message}. Fix the hook or the session files.`,
      { cause: error, details: { hook: name, format } },
    );
  }
}
