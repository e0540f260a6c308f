import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";
import { relativeNameProblem } from "../relative-name.js";
import type { TranscriptOrigin } from "./transcript-format.js";

/** Reads and checks `origin.json` of a captured conversation; anything odd is refused with code `session`. */
export async function readTranscriptOrigin(folder: string, format: string, id: string): Promise<TranscriptOrigin> {
  const file = join(folder, "origin.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new OutpostError(
      "session",
      `No captured ${format} conversation ${id} at ${folder}. Capture it first, or pass the home it was captured under.`,
      { cause: error, details: { id, format } },
    );
  }
  let origin: Partial<TranscriptOrigin>;
  try {
    origin = JSON.parse(text) as Partial<TranscriptOrigin>;
  } catch (error) {
    throw corrupt(file, "it is not valid JSON", error);
  }
  if (origin?.outpost !== "transcript" || origin.version !== 1) throw corrupt(file, "it is not an Outpost transcript record (version 1)");
  if (origin.format !== format || origin.id !== id) throw corrupt(file, `it records ${origin.format} conversation ${origin.id}`);
  for (const key of ["workspace", "home", "transcript"] as const) {
    if (typeof origin[key] !== "string") throw corrupt(file, `${key} is missing`);
  }
  // Relative paths from the file are untrusted: no absolute path, no `..` (a backslash is a plain character).
  const transcriptProblem = relativeNameProblem(origin.transcript!);
  if (transcriptProblem) throw corrupt(file, `the transcript path is unsafe: ${transcriptProblem}`);
  const sidecarProblem =
    origin.sidecar === undefined
      ? undefined
      : typeof origin.sidecar === "string"
        ? relativeNameProblem(origin.sidecar)
        : "it is not a string";
  if (sidecarProblem) throw corrupt(file, `the sidecar path is unsafe: ${sidecarProblem}`);
  if (typeof origin.mode !== "number") throw corrupt(file, "mode is missing");
  return origin as TranscriptOrigin;
}

function corrupt(file: string, problem: string, cause?: unknown): OutpostError {
  return new OutpostError("session", `The captured conversation record ${file} is corrupt: ${problem}. Capture the conversation again.`, {
    cause,
    details: { file },
  });
}
