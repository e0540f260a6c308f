import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { readCapturedFile } from "./captured-file.js";

/** What every captured conversation's `origin.json` holds: whose record it is and where it was captured. */
export interface OriginRecord {
  readonly outpost: string;
  readonly version: 1;
  readonly id: string;
  readonly workspace: string;
  readonly home: string;
}

/** Which record `readOriginRecord` expects. */
export interface ExpectedOrigin {
  /** The record's kind (`outpost` field), e.g. `transcript`. */
  readonly outpost: string;
  /** Named in messages (`codex`, `opencode`), and checked against the record's `format` when `checkFormat`. */
  readonly format: string;
  readonly checkFormat?: boolean;
  readonly id: string;
}

/**
 * Rule: a captured conversation's `origin.json` is untrusted input: it must be JSON of the expected kind,
 * version 1, for this id (and format), with string `workspace` and `home`; anything else is `session`
 * (missing: capture it first; odd: capture it again), and so is one another user could have written
 * (`readCapturedFile`). The caller checks its own further fields.
 */
export async function readOriginRecord<Origin extends OriginRecord>(
  folder: string,
  expected: ExpectedOrigin,
): Promise<Partial<Origin> & OriginRecord> {
  const file = join(folder, "origin.json");
  const { format, id } = expected;
  const bytes = await readCapturedFile(file, `the record of ${format} conversation ${id}`);
  if (bytes === undefined)
    throw new OutpostError(
      "session",
      `No captured ${format} conversation ${id} at ${folder}. Capture it first, or pass the home it was captured under.`,
      { details: { id, format } },
    );
  const text = bytes.toString("utf8");
  let origin: Partial<Origin & { format: unknown }>;
  try {
    origin = JSON.parse(text) as typeof origin;
  } catch (error) {
    throw corruptOrigin(file, "it is not valid JSON", error);
  }
  if (origin?.outpost !== expected.outpost || origin.version !== 1) {
    throw corruptOrigin(file, `it is not an Outpost ${expected.outpost} record (version 1)`);
  }
  if ((expected.checkFormat === true && origin.format !== format) || origin.id !== id) {
    throw corruptOrigin(file, `it records ${String(origin.format ?? format)} conversation ${String(origin.id)}`);
  }
  for (const key of ["workspace", "home"] as const) {
    if (typeof origin[key] !== "string") throw corruptOrigin(file, `${key} is missing`);
  }
  return origin as Partial<Origin> & OriginRecord;
}

/** The `session` error for an `origin.json` that cannot be trusted. */
export function corruptOrigin(file: string, problem: string, cause?: unknown): OutpostError {
  return new OutpostError("session", `The captured conversation record ${file} is corrupt: ${problem}. Capture the conversation again.`, {
    cause,
    details: { file },
  });
}
