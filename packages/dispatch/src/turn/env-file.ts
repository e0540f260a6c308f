import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { OutpostError } from "@outpost/core";

/** The repository's variables file for every agent command, under the root of the host checkout. */
export const ENV_FILE = join(".outpost", ".env");
const MAX_ENV_FILE_BYTES = 1024 * 1024;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Reads `.outpost/.env` of the repository root: `NAME=value` lines, `#` comments, an optional `export `,
 * values bare (an inline ` #` starts a comment), 'literal' or "with \n escapes". Absent: no variables.
 * A link is refused: a sandbox that can write the checkout must not point it at host secrets.
 */
export async function readEnvFile(root: string): Promise<Record<string, string>> {
  const path = join(root, ENV_FILE);
  let text: string;
  try {
    const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      const stats = await file.stat();
      if (!stats.isFile()) throw invalid(path, "it is not a regular file");
      if (stats.size > MAX_ENV_FILE_BYTES) throw invalid(path, `it is larger than ${MAX_ENV_FILE_BYTES} bytes`);
      text = await file.readFile("utf8");
    } finally {
      await file.close();
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT") return {};
    if (OutpostError.isInstance(error)) throw error;
    if (code === "ELOOP") throw invalid(path, "it is a symbolic link");
    throw invalid(path, error instanceof Error ? error.message : String(error));
  }
  return parseEnv(text, path);
}

/** Parses the text of an env file; a malformed line fails with `configuration` naming its number. */
export function parseEnv(text: string, path: string): Record<string, string> {
  const variables: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const body = line.startsWith("export ") ? line.slice(7).trimStart() : line;
    const equals = body.indexOf("=");
    const name = equals > 0 ? body.slice(0, equals).trim() : "";
    if (!NAME.test(name)) throw invalid(path, `line ${index + 1} is not NAME=value`);
    const value = parseValue(body.slice(equals + 1).trim());
    if (value === undefined) throw invalid(path, `line ${index + 1} has an unterminated quote`);
    variables[name] = value;
  });
  return variables;
}

function parseValue(value: string): string | undefined {
  const quote = value[0];
  if (quote === "'" || quote === '"') {
    const end = value.indexOf(quote, 1);
    if (quote === "'") return end < 0 ? undefined : value.slice(1, end);
    let result = "";
    for (let index = 1; index < value.length; index += 1) {
      const char = value[index]!;
      if (char === '"') return result;
      if (char === "\\" && index + 1 < value.length) {
        const next = value[++index]!;
        result += next === "n" ? "\n" : next === "t" ? "\t" : next === "r" ? "\r" : next;
      } else result += char;
    }
    return undefined;
  }
  const comment = value.search(/\s#/);
  return (comment >= 0 ? value.slice(0, comment) : value).trim();
}

function invalid(path: string, why: string): OutpostError {
  return new OutpostError("configuration", `Cannot use ${path}: ${why}. Fix or remove the file (NAME=value lines).`, { details: { path } });
}
