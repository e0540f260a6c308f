import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError, normalizeRelativePath } from "@outpost/core";
import type { TranscriptOrigin } from "./transcript-format.js";

/** Reads and checks `origin.json` of a captured conversation; anything odd is refused with code `session`. */
export async function readTranscriptOrigin(folder: string, format: string, id: string): Promise<TranscriptOrigin> {
  const file = join(folder, "origin.json");
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new OutpostError("session", `No captured ${format} conversation ${id} at ${folder}. Capture it first, or pass the home it was captured under.`, { cause: error, details: { id, format } });
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
  // Relative paths from the file are untrusted: no absolute path, no `..`.
  if (normalizeRelativePath(origin.transcript!, "transcript path") !== origin.transcript) throw corrupt(file, "the transcript path is not normalized");
  if (origin.sidecar !== undefined && normalizeRelativePath(origin.sidecar, "sidecar path") !== origin.sidecar) throw corrupt(file, "the sidecar path is not normalized");
  if (typeof origin.mode !== "number") throw corrupt(file, "mode is missing");
  return origin as TranscriptOrigin;
}

function corrupt(file: string, problem: string, cause?: unknown): OutpostError {
  return new OutpostError("session", `The captured conversation record ${file} is corrupt: ${problem}. Capture the conversation again.`, { cause, details: { file } });
}
