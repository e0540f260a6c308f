import { readFile, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { OutpostError, tailLines } from "@outpost/core";
import { MAX_BRIEF_BYTES, type Brief } from "./brief.js";
import { briefValues } from "./brief-values.js";
import { parseBriefTemplate } from "./brief-template.js";
import { runHostProcess } from "../process/run-host-process.js";

export interface ResolveBriefInput {
  readonly brief: Brief;
  /** Checkout root: brief files are relative to it and commands run in it. */
  readonly root: string;
  readonly expansionMs: number;
  readonly signal?: AbortSignal;
  readonly diagnostic?: (message: string) => void;
}

/** Turns a brief into the prompt text, expanding a brief file's variables and commands. */
export async function resolveBrief(input: ResolveBriefInput): Promise<string> {
  const { brief } = input;
  if (typeof brief === "string") return checkText(brief, "brief");
  if (brief && typeof brief === "object" && "text" in brief && typeof brief.text === "string") return checkText(brief.text, "brief");
  if (!brief || typeof brief !== "object" || !("file" in brief) || typeof brief.file !== "string") {
    throw new OutpostError("configuration", `brief must be text or { file, variables? }. Pass the task as a string or name a brief file.`);
  }
  const path = isAbsolute(brief.file) ? brief.file : resolve(input.root, brief.file);
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile())
    throw new OutpostError(
      "configuration",
      `Brief file ${path} does not exist or is not a file. Check the path (relative paths start at the repository root).`,
      { details: { file: path } },
    );
  if (info.size > MAX_BRIEF_BYTES) throw tooLarge(path, info.size);
  const template = decodeBrief(await readFile(path), path);
  const variables = briefValues(brief, path);
  let text = "";
  for (const part of parseBriefTemplate(template, path)) {
    if (part.kind === "text") text += part.text;
    else if (part.kind === "variable") {
      const value = variables[part.name];
      if (value === undefined)
        throw new OutpostError(
          "configuration",
          `Brief file ${path} uses {{${part.name}}} but no such variable was given. Pass it in brief.variables.`,
          { details: { file: path, variable: part.name } },
        );
      text += value;
    } else {
      const output = await expandCommand(part.command, path, variables, input);
      input.diagnostic?.(`brief: $(${part.command}) expanded to ${output.length} characters (~${Math.ceil(output.length / 4)} tokens)`);
      text += output;
    }
    if (Buffer.byteLength(text) > MAX_BRIEF_BYTES) throw tooLarge(path, Buffer.byteLength(text));
  }
  return checkText(text, `brief file ${path}`);
}

async function expandCommand(
  command: string,
  file: string,
  variables: Readonly<Record<string, string>>,
  input: ResolveBriefInput,
): Promise<string> {
  const result = await runHostProcess({
    executable: "/bin/sh",
    arguments: ["-c", command],
    directory: input.root,
    // Variables reach commands as environment variables, never by splicing them into the command text.
    variables,
    deadlineMs: input.expansionMs,
    signal: input.signal,
    what: `Brief command $(${command}) in ${file}`,
  });
  if (result.status !== 0) {
    throw new OutpostError(
      "prompt",
      `Brief command $(${command}) in ${file} exited with ${result.status}: ${tailLines(result.stderr, 500)}. Fix the command or the brief file.`,
      { details: { file, command, status: result.status } },
    );
  }
  return result.stdout.replace(/\n+$/, "");
}

function checkText(text: string, what: string): string {
  if (text.trim() === "") throw new OutpostError("configuration", `The ${what} is empty. Give the agent a task.`);
  if (Buffer.byteLength(text) > MAX_BRIEF_BYTES) throw tooLarge(what, Buffer.byteLength(text));
  return text;
}

function tooLarge(what: string, bytes: number): OutpostError {
  return new OutpostError(
    "limit",
    `The ${what} is ${bytes} bytes, more than the ${MAX_BRIEF_BYTES} accepted. Shorten it or have the agent read large inputs from files.`,
    { details: { bytes, limit: MAX_BRIEF_BYTES } },
  );
}

/** The brief file's text; a file that is not UTF-8 is refused rather than altered (U+FFFD in place of its bytes). */
function decodeBrief(bytes: Uint8Array, path: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    const offset = firstInvalidByte(bytes);
    throw new OutpostError(
      "configuration",
      `Brief file ${path} is not valid UTF-8 (first bad byte at offset ${offset}). Save it as UTF-8 (for example \`iconv -f latin1 -t utf-8\`).`,
      { details: { file: path, offset } },
    );
  }
}

function firstInvalidByte(bytes: Uint8Array): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (let index = 0; index < bytes.length;) {
    const lead = bytes[index]!;
    const length = lead < 0x80 ? 1 : lead >> 5 === 0b110 ? 2 : lead >> 4 === 0b1110 ? 3 : lead >> 3 === 0b11110 ? 4 : 0;
    if (length === 0 || index + length > bytes.length) return index;
    try {
      decoder.decode(bytes.subarray(index, index + length));
    } catch {
      return index;
    }
    index += length;
  }
  return bytes.length;
}
