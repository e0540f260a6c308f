import { lstat } from "node:fs/promises";
import { OutpostError } from "@outpost/core";
import { assertCapturedFile, readCapturedFile } from "../host/captured-file.js";
import { bundleProblem } from "./bundle-checks.js";
import type { SerializedPattern, SessionBundle } from "./session-bundle.js";

export interface BundleExpectation {
  readonly format: string;
  readonly id: string;
  readonly maxBytes: number;
  readonly maxFiles: number;
  readonly include: SerializedPattern;
  readonly exclude?: SerializedPattern;
  readonly required: readonly string[];
}

/**
 * Reads and checks a bundle file on the host; anything odd is refused with code `session`, and so is a
 * bundle another user could have written (`readCapturedFile`).
 */
export async function readBundle(file: string, expected: BundleExpectation): Promise<SessionBundle> {
  const what = `the bundle of ${expected.format} conversation ${expected.id}`;
  const absent = (cause?: unknown) =>
    new OutpostError(
      "session",
      `No captured ${expected.format} conversation ${expected.id} at ${file}. Capture it first, or pass the home it was captured under.`,
      { cause, details: { id: expected.id } },
    );
  await assertCapturedFile(file, what);
  let size: number;
  try {
    size = (await lstat(file)).size;
  } catch (error) {
    throw absent(error);
  }
  // Base64 and JSON framing make the file larger than its contents; beyond that it is not ours.
  if (size > expected.maxBytes * 2 + 1024 * 1024) {
    throw new OutpostError(
      "limit",
      `The bundle ${file} is ${size} bytes, over the limit for ${expected.maxBytes} bytes of session files. Raise maxBytes if it is legitimate.`,
      { details: { size } },
    );
  }
  let bundle: unknown;
  try {
    const bytes = await readCapturedFile(file, what);
    if (bytes === undefined) throw absent();
    bundle = JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    if (error instanceof OutpostError) throw error;
    throw new OutpostError("session", `The bundle ${file} is corrupt: ${(error as Error).message}. Capture the conversation again.`, {
      cause: error,
      details: { file },
    });
  }
  const problem = bundleProblem(bundle, expected);
  if (problem)
    throw new OutpostError("session", `The bundle ${file} is unusable: ${problem}. Capture the conversation again.`, { details: { file } });
  const value = bundle as SessionBundle;
  const present = new Set(value.files.map((entry) => entry.path));
  const missing = expected.required.filter((path) => !present.has(path));
  if (missing.length > 0) {
    throw new OutpostError(
      "session",
      `The bundle ${file} is incomplete: ${missing.join(", ")} missing. Capture the conversation again after a full turn.`,
      { details: { file, missing } },
    );
  }
  return value;
}
