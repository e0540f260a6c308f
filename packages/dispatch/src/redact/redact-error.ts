import { OutpostError } from "@outpost/core";
import type { Redactor } from "./redactor.js";

/**
 * The error a dispatch rejects with, its message, stack and details redacted. An OutpostError's details are
 * frozen, so a changed one is rebuilt with the same code; anything else (a signal's own reason) is left as it is.
 */
export function redactError(redactor: Redactor, error: unknown): unknown {
  if (redactor.empty || !OutpostError.isInstance(error)) return error;
  const message = redactor.text(error.message);
  const details = redactor.value({ ...error.details });
  if (message === error.message && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  const cause = error.cause instanceof Error ? new Error(redactor.text(error.cause.message)) : redactor.value(error.cause);
  const redacted = new OutpostError(error.code, message, { details, ...(cause === undefined ? {} : { cause }) });
  if (error.stack) redacted.stack = redactor.text(error.stack);
  return redacted;
}
