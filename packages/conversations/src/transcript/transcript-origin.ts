import { join } from "node:path";
import { corruptOrigin, readOriginRecord } from "../host/origin-record.js";
import { relativeNameProblem } from "../relative-name.js";
import type { TranscriptOrigin } from "./transcript-format.js";

/** Reads and checks `origin.json` of a captured conversation; anything odd is refused with code `session`. */
export async function readTranscriptOrigin(folder: string, format: string, id: string): Promise<TranscriptOrigin> {
  const origin = await readOriginRecord<TranscriptOrigin>(folder, { outpost: "transcript", format, checkFormat: true, id });
  const file = join(folder, "origin.json");
  if (typeof origin.transcript !== "string") throw corruptOrigin(file, "transcript is missing");
  // Relative paths from the file are untrusted: no absolute path, no `..` (a backslash is a plain character).
  const transcriptProblem = relativeNameProblem(origin.transcript);
  if (transcriptProblem) throw corruptOrigin(file, `the transcript path is unsafe: ${transcriptProblem}`);
  const sidecarProblem =
    origin.sidecar === undefined
      ? undefined
      : typeof origin.sidecar === "string"
        ? relativeNameProblem(origin.sidecar)
        : "it is not a string";
  if (sidecarProblem) throw corruptOrigin(file, `the sidecar path is unsafe: ${sidecarProblem}`);
  if (typeof origin.mode !== "number") throw corruptOrigin(file, "mode is missing");
  return origin as TranscriptOrigin;
}
