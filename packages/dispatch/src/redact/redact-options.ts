import { OutpostError } from "@outpost/core";

/**
 * The `redact` option: what never reaches anything Outpost stores or emits (events, observations, telemetry
 * attributes, activity records, journals, error messages). The agent's credential variables are always added.
 */
export interface Redaction {
  /** Regular expressions (a string is a regular expression's source); every match is replaced. */
  readonly patterns?: readonly (RegExp | string)[];
  /** Literal values, replaced wherever they occur. */
  readonly values?: readonly string[];
  /** Also redact the captured native conversations; default false (they stay byte-exact, so a continuation resumes them). */
  readonly conversations?: boolean;
}

/** Refuses a malformed `redact` before anything is allocated (code `configuration`). */
export function assertRedaction(redact: unknown): asserts redact is Redaction | undefined {
  if (redact === undefined) return;
  if (!redact || typeof redact !== "object" || Array.isArray(redact))
    throw configuration("redact must be an object: { patterns?, values?, conversations? }.");
  const { patterns, values, conversations } = redact as Redaction;
  if (patterns !== undefined) {
    if (!Array.isArray(patterns)) throw configuration("redact.patterns must be an array of regular expressions or their sources.");
    for (const pattern of patterns as unknown[]) {
      if (pattern instanceof RegExp) continue;
      if (typeof pattern !== "string" || pattern === "")
        throw configuration(`redact.patterns has ${String(pattern)}: each entry is a RegExp or a non-empty source string.`);
      try {
        new RegExp(pattern);
      } catch (error) {
        throw configuration(`redact.patterns has ${JSON.stringify(pattern)}, not a valid regular expression: ${(error as Error).message}`);
      }
    }
  }
  if (values !== undefined && (!Array.isArray(values) || (values as unknown[]).some((value) => typeof value !== "string" || value === "")))
    throw configuration("redact.values must be an array of non-empty strings.");
  if (conversations !== undefined && typeof conversations !== "boolean")
    throw configuration(`redact.conversations must be a boolean, got ${JSON.stringify(conversations)}.`);
}

function configuration(message: string): OutpostError {
  return new OutpostError("configuration", message);
}
